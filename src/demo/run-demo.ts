import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { formatUnits, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createFerryClient, FerryApiError, type Order, signQuote } from '../../sdk/src/index.ts';
import { createApp, type FerryAppInstance } from '../app.ts';
import { createChainRegistry } from '../chains/chain-registry.ts';
import { ANVIL_KEYS, DEVNET_WORKER_KEYS, type Devnets, startDevnets } from '../chains/devnet.ts';
import { devnetRegistryFile } from '../chains/devnet-registry.ts';
import { balanceOf, chainClients, ensureAllowance } from '../chains/lp-chain-clients.ts';
import { loadConfig } from '../config/config.ts';
import { createFerryApi } from '../lp/ferry-api.ts';
import { type BotLog, createLpBot, type LpBot } from '../lp/lp-bot.ts';
import { quoteOutputAmount } from '../lp/pricing.ts';
import { type LpJournal, openLpJournal } from '../store/lp-journal.ts';

export class DemoError extends Error {
  override name = 'DemoError';
}

export interface DemoOptions {
  /** Keeps devnet state and the SQLite database here; default a temp directory removed afterwards. */
  dataDir?: string;
  timeoutMs: number;
  /** Base units of USDC (6 decimals). */
  inputAmount: bigint;
  spreadBps: number;
  /** Ferry's own logs (info) and the LP bot's info lines; otherwise only the bot's warnings are shown. */
  verbose?: boolean;
  /** Seconds between devnet blocks (DEVNET_BLOCK_TIME); default 0, each transaction mined at once. */
  blockTime?: number;
  print(line: string): void;
}

export interface DemoResult {
  orderId: string;
  depositTx: Hex;
  fillTx: Hex;
  settleTx: Hex;
}

const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient = privateKeyToAccount(ANVIL_KEYS[3]);
const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const POLL_MS = 150;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One whole swap on two fresh devnets, as a new user sees it: devnets, API with its settlement worker, a money
 * mover and a liquidity provider account, the reference LP bot quoting and filling in-process, and the money
 * mover's side (approve, request, accept, sign, swap) through the typed client SDK (`@ferry/client`). Throws DemoError naming the failed step.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const { print } = options;
  const started = Date.now();
  const dir = options.dataDir
    ? path.resolve(options.dataDir)
    : fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-demo-'));
  fs.mkdirSync(dir, { recursive: true });
  let step = 'devnets';
  let aborted = false;
  let devnets: Devnets | null = null;
  let app: FerryAppInstance | null = null;
  let bot: LpBot | null = null;
  let journal: LpJournal | null = null;

  const ok = (label: string, text: string) => print(`  ✓ ${label.padEnd(14)} ${text}`);
  const checkAborted = () => {
    if (aborted) throw new DemoError('aborted');
  };
  /** Polls `probe` until it returns a value; a thrown DemoError ends the wait at once. */
  async function waitFor<T>(probe: () => Promise<T | null>): Promise<T> {
    for (;;) {
      checkAborted();
      const value = await probe();
      if (value !== null) return value;
      await sleep(POLL_MS);
    }
  }

  const botLog: BotLog = {
    debug() {},
    info: (obj, msg) => {
      if (options.verbose) print(`      lp bot: ${msg} ${JSON.stringify(obj)}`);
    },
    warn: (obj, msg) => print(`      lp bot: ${msg} ${JSON.stringify(obj)}`),
    error: (obj, msg) => print(`      lp bot: ${msg} ${JSON.stringify(obj)}`),
  };

  const work = async (): Promise<DemoResult> => {
    print(`Ferry demo: one cross-chain swap on two local devnets (data in ${dir})`);
    devnets = await startDevnets({
      dataDir: path.join(dir, 'devnets'),
      ports: [0, 0],
      blockTime: options.blockTime ?? 0,
    });
    const registry = createChainRegistry(devnetRegistryFile(devnets));
    const [chainA, chainB] = registry.chains;
    if (!chainA || !chainB) throw new DemoError('the devnets did not come up as two chains');
    const usdcA = chainA.tokens.find((t) => t.symbol === 'USDC');
    const usdcB = chainB.tokens.find((t) => t.symbol === 'USDC');
    if (!usdcA || !usdcB) throw new DemoError('USDC missing from the devnets');
    ok('devnets', registry.chains.map((c) => `${c.name} (chain ${c.chainId}) ${c.rpcUrl}`).join(', '));
    checkAborted();

    step = 'API';
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dir,
      DATABASE_URL: `sqlite:${path.join(dir, 'ferry.sqlite')}`,
      CHAIN_REGISTRY: '',
      LOG_LEVEL: options.verbose ? 'info' : 'silent',
      WORKER: 'true',
      WORKER_POLL_MS: '100',
      // One process plays every party: the per-key limit of 100/min is not the point here.
      RATE_LIMIT_API_KEY: '100000',
      RATE_LIMIT_IP: '100000',
    });
    app = await createApp({
      config,
      registry,
      log: pino({ level: config.logLevel }),
      workerKeys: DEVNET_WORKER_KEYS,
    });
    const baseUrl = await app.listen();
    ok('API', `${baseUrl} (settlement worker on)`);
    checkAborted();

    step = 'accounts';
    const mmAccount = await app.accounts.createAccount({
      type: 'moneyMover',
      name: 'demo wallet app',
      address: null,
    });
    const mmKey = (await app.accounts.createApiKey(mmAccount.id)).apiKey;
    const lpAccount = await app.accounts.createAccount({
      type: 'liquidityProvider',
      name: 'demo market maker',
      address: lpWallet.address,
    });
    const lpKey = (await app.accounts.createApiKey(lpAccount.id)).apiKey;
    ok(
      'accounts',
      `money mover ${mmAccount.id}, liquidity provider ${lpAccount.id} (fill address ${lpWallet.address})`,
    );

    const mm = createFerryClient({ baseUrl, apiKey: mmKey });
    journal = openLpJournal(path.join(dir, 'lp-journal.sqlite'));
    bot = createLpBot({
      api: createFerryApi({ baseUrl, apiKey: lpKey }),
      privateKey: ANVIL_KEYS[4],
      spreadBps: options.spreadBps,
      log: botLog,
      journal,
    });
    bot.start(POLL_MS);

    const a = chainClients(chainA, offerer);
    const b = chainClients(chainB, offerer);
    const fmt = (v: bigint) => formatUnits(v, usdcA.decimals);
    const snapshot = async () => ({
      offerer: await balanceOf(a, usdcA.address, offerer.address),
      recipient: await balanceOf(b, usdcB.address, recipient.address),
      lpA: await balanceOf(a, usdcA.address, lpWallet.address),
      lpB: await balanceOf(b, usdcB.address, lpWallet.address),
    });
    const before = await snapshot();
    const input = options.inputAmount;
    const expectedOutput = quoteOutputAmount(input, options.spreadBps, {
      input: usdcA.decimals,
      output: usdcB.decimals,
    });

    step = 'approve';
    const approveTx = await ensureAllowance(a, usdcA.address, chainA.contracts.escrow, input);
    ok(
      'approve',
      `offerer ${offerer.address} lets the escrow on ${chainA.name} pull ${fmt(input)} USDC` +
        (approveTx ? ` (tx ${approveTx})` : ' (allowance already set)'),
    );

    step = 'quote request';
    const { quoteId: quoteRequestId } = await mm.quoteRequests.create({
      offerer: offerer.address,
      recipient: recipient.address,
      inputToken: usdcA.address,
      outputToken: usdcB.address,
      inputAmount: input.toString(),
      inputChain: chainA.name,
      outputChain: chainB.name,
    });
    ok('quote request', `${quoteRequestId}: ${fmt(input)} USDC on ${chainA.name} -> USDC on ${chainB.name}`);

    step = 'LP quote';
    const quote = await waitFor(
      async () => (await mm.quotes.list({ quoteRequestId, status: 'active' })).quotes[0] ?? null,
    );
    ok('LP quote', `${quote.id}: ${fmt(BigInt(quote.outputAmount))} USDC (spread ${options.spreadBps} bps)`);
    if (BigInt(quote.outputAmount) !== expectedOutput) {
      throw new DemoError(`the LP quoted ${quote.outputAmount}, expected ${expectedOutput}`);
    }

    step = 'accept';
    const accepted = await mm.quotes.accept(quote.id);
    ok('accept', `${quote.id} accepted (${accepted.declinedCount} other quotes declined)`);

    step = 'sign';
    const signature = await signQuote(offerer, quote.typedData);
    ok('sign', `offerer signed the EIP-712 order ${quote.signingHash}`);

    step = 'swap';
    const swap = await mm.swaps.execute({ orderId: quote.orderId, quoteId: quote.id, signature });
    ok('swap', `order ${swap.orderId} created (blockchainOrderId ${swap.blockchainOrderId})`);

    const reach = (statuses: string[]) =>
      waitFor<Order>(async () => {
        const order = await mm.orders.get(swap.orderId);
        if (order.status === 'failed' || order.status === 'refunded') {
          throw new DemoError(`order ${order.status}: ${order.failureReason ?? 'no reason given'}`);
        }
        return statuses.includes(order.status) ? order : null;
      });
    step = 'deposit';
    const deposited = await reach(['deposited', 'filled', 'completed']);
    ok(
      'deposit',
      `${fmt(input)} USDC locked in the escrow on ${chainA.name} (tx ${deposited.details.srcChainTxHash})`,
    );
    step = 'fill';
    const filled = await reach(['filled', 'completed']);
    ok(
      'fill',
      `LP paid ${fmt(expectedOutput)} USDC to the recipient on ${chainB.name} (tx ${filled.details.dstChainTxHash})`,
    );
    step = 'settle';
    const completed = await reach(['completed']);
    ok(
      'settle',
      `escrow released ${fmt(input)} USDC to the LP on ${chainA.name} (tx ${completed.details.settlementTxHash})`,
    );
    const { srcChainTxHash, dstChainTxHash, settlementTxHash } = completed.details;
    if (!srcChainTxHash || !dstChainTxHash || !settlementTxHash) {
      throw new DemoError('the completed order lacks a transaction hash');
    }

    step = 'balances';
    const after = await snapshot();
    const rows: [string, string, bigint, bigint][] = [
      [`offerer   ${offerer.address}`, chainA.name, before.offerer, after.offerer],
      [`recipient ${recipient.address}`, chainB.name, before.recipient, after.recipient],
      [`LP        ${lpWallet.address}`, chainA.name, before.lpA, after.lpA],
      [`LP        ${lpWallet.address}`, chainB.name, before.lpB, after.lpB],
    ];
    const col = (s: string, n: number) => s.padStart(n);
    print('');
    print(
      `  ${'USDC balances'.padEnd(52)} ${'chain'.padEnd(9)} ${col('before', 16)} ${col('after', 16)} ${col('change', 12)}`,
    );
    for (const [who, chainName, x, y] of rows) {
      const delta = y - x;
      const sign = delta > 0n ? '+' : '';
      print(
        `  ${who.padEnd(52)} ${chainName.padEnd(9)} ${col(fmt(x), 16)} ${col(fmt(y), 16)} ${col(sign + fmt(delta), 12)}`,
      );
    }
    const lpNet = after.lpA - before.lpA + (after.lpB - before.lpB);
    if (
      after.offerer - before.offerer !== -input ||
      after.recipient - before.recipient !== expectedOutput ||
      lpNet !== input - expectedOutput
    ) {
      throw new DemoError('the balances do not add up to the swap');
    }
    print('');
    print(
      `Swap completed in ${((Date.now() - started) / 1000).toFixed(1)} s: the offerer paid ${fmt(input)} USDC, ` +
        `the recipient got ${fmt(expectedOutput)} USDC, the LP earned ${fmt(lpNet)} USDC.`,
    );
    return {
      orderId: swap.orderId,
      depositTx: srcChainTxHash as Hex,
      fillTx: dstChainTxHash as Hex,
      settleTx: settlementTxHash as Hex,
    };
  };

  let timer: NodeJS.Timeout | undefined;
  const running = work();
  running.catch(() => {});
  try {
    return await Promise.race([
      running,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new DemoError(`timed out after ${options.timeoutMs / 1000} s`)),
          options.timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    const message =
      error instanceof FerryApiError ? `${error.code}: ${error.message}` : (error as Error).message;
    print(`  ✗ ${step.padEnd(14)} ${message}`);
    throw new DemoError(`step "${step}" failed: ${message}`);
  } finally {
    aborted = true;
    clearTimeout(timer);
    // Let the steps stop at their next checkpoint, so whatever they started (anvil children) is cleaned up.
    await Promise.race([running.catch(() => {}), sleep(20_000)]);
    await (bot as LpBot | null)?.stop().catch(() => {});
    await (journal as LpJournal | null)?.close().catch(() => {});
    await (app as FerryAppInstance | null)?.close().catch(() => {});
    await (devnets as Devnets | null)?.stop().catch(() => {});
    if (!options.dataDir) fs.rmSync(dir, { recursive: true, force: true });
  }
}
