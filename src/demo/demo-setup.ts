import path from 'node:path';
import { pino } from 'pino';
import type { Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createApp, type FerryAppInstance } from '../app.ts';
import { type ChainRegistry, createChainRegistry } from '../chains/chain-registry.ts';
import { loadConfig } from '../config/config.ts';
import { ANVIL_KEYS, DEVNET_WORKER_KEYS, startDevnets } from '../devnet/devnet.ts';
import { devnetRegistryFile } from '../devnet/devnet-registry.ts';
import { createFerryApi } from '../lp/ferry-api.ts';
import { createLpBot } from '../lp/lp-bot.ts';
import type { AccountService } from '../services/account-service.ts';
import { openLpJournal } from '../store/ledgers/lp-journal.ts';
import { checkAborted, DemoError, type DemoRun, demoBotLog, ok, POLL_MS } from './demo-run.ts';

export const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);

/** What the demo's swap needs of a chain: where to reach it, its escrow and its USDC. */
export interface DemoChain {
  readonly name: string;
  readonly chainId: number;
  readonly rpcUrl: string;
  readonly escrow: Address;
}

export interface DemoToken {
  readonly address: Address;
  readonly decimals: number;
}

/** The two chains the demo swaps between (input A, output B) and their USDC. */
export interface DemoChains {
  readonly chainA: DemoChain;
  readonly chainB: DemoChain;
  readonly usdcA: DemoToken;
  readonly usdcB: DemoToken;
}

/** Two fresh devnets with Ferry's contracts and their tokens, and their registry for the demo's own API. */
export async function startDemoChains(run: DemoRun): Promise<DemoChains & { registry: ChainRegistry }> {
  run.devnets = await startDevnets({
    dataDir: path.join(run.dir, 'devnets'),
    ports: [0, 0],
    blockTime: run.options.blockTime ?? 0,
  });
  const registry = createChainRegistry(devnetRegistryFile(run.devnets));
  const [chainA, chainB] = registry.chains;
  if (!chainA || !chainB) throw new DemoError('the devnets did not come up as two chains');
  const usdcA = chainA.tokens.find((t) => t.symbol === 'USDC');
  const usdcB = chainB.tokens.find((t) => t.symbol === 'USDC');
  if (!usdcA || !usdcB) throw new DemoError('USDC missing from the devnets');
  ok(run, 'devnets', registry.chains.map((c) => `${c.name} (chain ${c.chainId}) ${c.rpcUrl}`).join(', '));
  checkAborted(run);
  const demoChain = (c: typeof chainA): DemoChain => ({
    name: c.name,
    chainId: c.chainId,
    rpcUrl: c.rpcUrl,
    escrow: c.contracts.escrow,
  });
  return { registry, chainA: demoChain(chainA), chainB: demoChain(chainB), usdcA, usdcB };
}

/** The API with its settlement worker, on SQLite in the run's folder, listening. */
export async function startDemoApi(
  run: DemoRun,
  chains: { registry: ChainRegistry },
): Promise<{ app: FerryAppInstance; baseUrl: string }> {
  run.step = 'API';
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: run.dir,
    DATABASE_URL: `sqlite:${path.join(run.dir, 'ferry.sqlite')}`,
    CHAIN_REGISTRY: '',
    LOG_LEVEL: run.options.verbose ? 'info' : 'silent',
    WORKER: 'true',
    WORKER_POLL_MS: '100',
    // One process plays every party: the per-key limit of 100/min is not the point here.
    RATE_LIMIT_API_KEY: '100000',
    RATE_LIMIT_IP: '100000',
  });
  const app = await createApp({
    config,
    registry: chains.registry,
    log: pino({ level: config.logLevel }),
    workerKeys: DEVNET_WORKER_KEYS,
  });
  run.app = app;
  const baseUrl = await app.listen();
  ok(run, 'API', `${baseUrl} (settlement worker on)`);
  checkAborted(run);
  return { app, baseUrl };
}

/** The money mover's and the liquidity provider's accounts and API keys. */
export async function createDemoAccounts(
  run: DemoRun,
  { accounts }: { accounts: AccountService },
): Promise<{ mmKey: string; lpKey: string }> {
  run.step = 'accounts';
  // By name: `ferry demo --api` run again uses the accounts its first run added (with a new key each).
  const mm = await accounts.findOrCreateAccount({
    type: 'moneyMover',
    name: 'demo wallet app',
    address: null,
  });
  const mmKey = (await accounts.createApiKey(mm.account.id)).apiKey;
  const lp = await accounts.findOrCreateAccount({
    type: 'liquidityProvider',
    name: 'demo market maker',
    address: lpWallet.address,
  });
  const lpKey = (await accounts.createApiKey(lp.account.id)).apiKey;
  const reused = mm.reused || lp.reused ? ' (reused)' : '';
  ok(
    run,
    'accounts',
    `money mover ${mm.account.id}, liquidity provider ${lp.account.id} (fill address ${lpWallet.address})${reused}`,
  );
  return { mmKey, lpKey };
}

/** The reference LP bot, quoting and filling in this process with its journal in the run's folder. */
export function startDemoBot(run: DemoRun, baseUrl: string, lpKey: string): void {
  run.journal = openLpJournal(path.join(run.dir, 'lp-journal.sqlite'));
  run.bot = createLpBot({
    api: createFerryApi({ baseUrl, apiKey: lpKey }),
    privateKey: ANVIL_KEYS[4],
    spreadBps: run.options.spreadBps,
    log: demoBotLog(run.options),
    journal: run.journal,
  });
  run.bot.start(POLL_MS);
}
