import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { createApp, type FerryAppInstance } from '../../src/app.ts';
import {
  type ChainRegistry,
  createChainRegistry,
  type RegistryFile,
} from '../../src/chains/chain-registry.ts';
import { type Config, loadConfig } from '../../src/config/config.ts';
import { ANVIL_KEYS, DEVNET_WORKER_KEYS, type Devnets, startDevnets } from '../../src/devnet/devnet.ts';
import type { DevnetMessenger } from '../../src/devnet/devnet-chain-config.ts';
import { devnetRegistryFile } from '../../src/devnet/devnet-registry.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { AccountType } from '../../src/domain/principal.ts';
import { type LpJournal, openLpJournal } from '../../src/store/ledgers/lp-journal.ts';
import { createTestDatabaseUrl } from './test-database.ts';

/** A clock the test moves by hand: expiry is tested by advancing it, never by sleeping. */
export class ManualClock implements Clock {
  private ms: number;
  constructor(start = Date.now()) {
    this.ms = start;
  }
  now(): Date {
    return new Date(this.ms);
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Harness {
  baseUrl: string;
  app: FerryAppInstance;
  config: Config;
  clock: ManualClock;
  /** The registry written to a file, for worker processes started with CHAIN_REGISTRY. */
  registryFile: string;
  dataDir: string;
  registry: ChainRegistry;
  devnets: Devnets;
  /** Two funded wallets (anvil accounts 2 and 3: 1,000,000 USDC and USDT on both chains). */
  offerer: ReturnType<typeof privateKeyToAccount>;
  otherWallet: ReturnType<typeof privateKeyToAccount>;
  chainA: string;
  chainB: string;
  usdcA: `0x${string}`;
  usdcB: `0x${string}`;
  createAccount(
    type: AccountType,
    name?: string,
    address?: `0x${string}`,
  ): Promise<{ id: string; apiKey: string }>;
  http<T = any>(
    method: string,
    urlPath: string,
    options?: {
      apiKey?: string;
      bearer?: string;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
      /** Another instance on the same database (defaults to this harness's server). */
      baseUrl?: string;
    },
  ): Promise<HttpResponse<T>>;
  /**
   * The LP bot's journal under this harness's folder (one file per `name`: reopening a name is a restarted bot),
   * closed by close().
   */
  lpJournal(name?: string): LpJournal;
  /**
   * Restarts the API on the same database and chains (data must survive); `changes` replace parts of the config
   * from then on (an operator who changed a setting before the restart).
   */
  restart(changes?: Partial<Config>): Promise<void>;
  close(): Promise<void>;
}

/** Registry fields set on every devnet chain (e.g. a short `replaceAfterSeconds`). */
export type ChainOverrides = Partial<Omit<RegistryFile['chains'][number], 'name' | 'chainId' | 'rpcUrl'>>;

export interface HarnessOptions {
  /** Registry fields set on every devnet chain. */
  chains?: ChainOverrides;
  /** How the devnets prove fills (default LayerZero, with the relay running in the test process). */
  messenger?: DevnetMessenger;
  /** Changes the devnets' registry before Ferry starts (e.g. RPC URLs through a fault proxy, confirmations). */
  registry?: (file: RegistryFile, devnets: Devnets) => RegistryFile | Promise<RegistryFile>;
}

export async function startHarness(
  overrides: Partial<Config> = {},
  options: HarnessOptions = {},
): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-test-'));
  const journals: LpJournal[] = [];
  const devnets = await startDevnets({
    dataDir: path.join(dir, 'devnets'),
    ports: [0, 0],
    ...(options.messenger ? { messenger: options.messenger } : {}),
    // The escrows enforce the fee they were deployed with; Ferry refuses to start with another PROTOCOL_FEE_BPS.
    ...(overrides.protocolFeeBps ? { protocolFeeBps: overrides.protocolFeeBps } : {}),
  });
  const base = devnetRegistryFile(devnets);
  const withChains: RegistryFile = { chains: base.chains.map((chain) => ({ ...chain, ...options.chains })) };
  const registryFileContent = options.registry ? await options.registry(withChains, devnets) : withChains;
  const registry = createChainRegistry(registryFileContent);
  const database = await createTestDatabaseUrl(path.join(dir, 'ferry.sqlite'));
  const clock = new ManualClock();
  let config = loadConfig(
    // The settlement worker is off unless a suite turns it on: most suites assert orders stay `created`.
    {
      PORT: '0',
      DATA_DIR: dir,
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      CHAIN_REGISTRY: '',
      WORKER: 'false',
    },
    // Suites sign in far more than 10 times a minute from 127.0.0.1; the sign-in limit has its own suite.
    {
      siweDomains: ['ferry.test'],
      signIn: { perIpPerMinute: 10_000, perAddressPerMinute: 10_000, sessionsPerAddress: 5 },
      ...overrides,
    },
  );
  const log = pino({ level: process.env.FERRY_TEST_LOG ?? 'silent' });
  const workerKeys = DEVNET_WORKER_KEYS;
  const registryFile = path.join(dir, 'chains.json');
  fs.writeFileSync(registryFile, JSON.stringify(registryFileContent));
  let app = await createApp({ config, registry, clock, log, workerKeys });
  let baseUrl = await app.listen();

  const chainA = registry.chains[0]!;
  const chainB = registry.chains[1]!;
  const harness: Harness = {
    get baseUrl() {
      return baseUrl;
    },
    get app() {
      return app;
    },
    get config() {
      return config;
    },
    clock,
    registryFile,
    dataDir: dir,
    registry,
    devnets,
    offerer: privateKeyToAccount(ANVIL_KEYS[2]!),
    otherWallet: privateKeyToAccount(ANVIL_KEYS[3]!),
    chainA: chainA.name,
    chainB: chainB.name,
    usdcA: chainA.tokens.find((t) => t.symbol === 'USDC')!.address,
    usdcB: chainB.tokens.find((t) => t.symbol === 'USDC')!.address,
    async createAccount(type, name = type, address) {
      const lpAddress =
        address ?? (type === 'liquidityProvider' ? privateKeyToAccount(ANVIL_KEYS[4]!).address : null);
      const account = await app.accounts.createAccount({ type, name, address: lpAddress ?? null });
      const { apiKey } = await app.accounts.createApiKey(account.id);
      return { id: account.id, apiKey };
    },
    async http(method, urlPath, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.apiKey) headers['x-api-key'] = options.apiKey;
      if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${options.baseUrl ?? baseUrl}${urlPath}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: response.status, headers: response.headers, body: parsed as any };
    },
    async restart(changes = {}) {
      await app.close();
      config = { ...config, ...changes };
      app = await createApp({ config, registry, clock, log, workerKeys });
      baseUrl = await app.listen();
    },
    lpJournal(name = 'lp') {
      const journal = openLpJournal(path.join(dir, `lp-journal-${name}.sqlite`));
      journals.push(journal);
      return journal;
    },
    async close() {
      for (const journal of journals) await journal.close();
      await app.close();
      await devnets.stop();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
