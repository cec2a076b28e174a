import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPublicClient, type Hex, http, maxUint256, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createFerryClient, type FerryEvent, signQuote, subscribeWs } from '../../sdk/src/index.ts';
import { loadChainRegistryFile } from '../../src/chains/chain-registry.ts';
import { chainClients, ensureAllowance } from '../../src/chains/settlement/lp-chain-clients.ts';
import { ANVIL_KEYS } from '../../src/devnet/devnet.ts';
import { type ChainWatch, rpc, watchChain } from '../harness/chain-watch.ts';
import type { RunningServer } from '../harness/server.ts';
import { startLpBot } from './settlement-bot.ts';
import {
  type MeasuredSwap,
  type SettlementResult,
  STEPS,
  type Step,
  type SwapTimes,
  settlementResult,
  type TxTimes,
} from './settlement-breakdown.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient = privateKeyToAccount(ANVIL_KEYS[3]);
const LP_KEY = ANVIL_KEYS[4];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNSETTLED = { completedReceivedAt: null, failed: null };

async function cliJson(env: Record<string, string>, args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/ferry.js', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return JSON.parse(stdout);
}

/** A money mover and a liquidity provider (filling from LP_KEY's address), created through the CLI. */
async function createSettlementAccounts(options: { dataDir: string; databaseUrl: string }) {
  const env = { DATA_DIR: options.dataDir, DATABASE_URL: options.databaseUrl, LOG_LEVEL: 'warn' };
  const mm = await cliJson(env, ['accounts', 'create', '--type', 'moneyMover', '--name', 'bench settlement']);
  const lpAddress = privateKeyToAccount(LP_KEY).address;
  const lp = await cliJson(env, [
    'accounts',
    'create',
    '--type',
    'liquidityProvider',
    '--name',
    'bench reference LP',
    '--address',
    lpAddress,
  ]);
  return { mm, lp };
}

/** The two devnets of the registry Ferry wrote, and USDC on each. */
function settlementChains(dataDir: string) {
  const registry = loadChainRegistryFile(path.join(dataDir, 'chains.json'));
  const [chainA, chainB] = registry.chains;
  if (!chainA || !chainB) throw new Error('the registry needs two chains');
  const usdcA = chainA.tokens.find((t) => t.symbol === 'USDC');
  const usdcB = chainB.tokens.find((t) => t.symbol === 'USDC');
  if (!usdcA || !usdcB) throw new Error('USDC missing from the devnets');
  return { chainA, chainB, usdcA, usdcB };
}

/** Records, on each swap in `times`, when Ferry's events say it reached each status (and when completion arrived). */
function followSwapEvents(baseUrl: string, apiKey: string, times: Map<string, SwapTimes>) {
  return subscribeWs({
    baseUrl,
    apiKey,
    channels: ['account'],
    onEvent(event: FerryEvent) {
      const at = Date.now();
      if (event.type !== 'order.created' && event.type !== 'order.updated') return;
      const data = event.data as { id: string; status: string };
      const t = times.get(data.id);
      if (!t) return;
      const status = event.type === 'order.created' ? 'created' : data.status;
      if (status === 'created' || (STEPS as readonly string[]).includes(status)) {
        t.events[status as 'created' | Step] ??= Date.parse(event.occurredAt);
      }
      if (status === 'completed') t.completedReceivedAt ??= at;
      if (status === 'failed' || status === 'refunded') t.failed ??= status;
    },
  });
}

async function txTimes(
  watch: ChainWatch,
  pub: PublicClient,
  hash: Hex | null | undefined,
): Promise<TxTimes | null> {
  if (!hash) return null;
  const receipt = await pub.getTransactionReceipt({ hash });
  const mined = watch.blockSeenAt(Number(receipt.blockNumber));
  if (mined === null) return null;
  const pending = watch.pendingSeenAt(hash);
  return { mined, pending };
}

/**
 * One unrecorded swap first: the bot process is up, subscribed and has made its first approvals, so the
 * measured swaps see a running market maker, not one still starting (tsx compiling it on a loaded machine).
 */
async function warmUp(oneSwap: () => Promise<SwapTimes | string>, botLog: () => string): Promise<void> {
  const warmUp = await oneSwap();
  if (typeof warmUp === 'string') throw new Error(`warm-up swap: ${warmUp}; LP bot: ${botLog().slice(-600)}`);
  const warmDeadline = Date.now() + 120_000;
  while (warmUp.completedReceivedAt === null && !warmUp.failed && Date.now() < warmDeadline) await sleep(50);
  if (warmUp.completedReceivedAt === null) {
    throw new Error(`warm-up swap ${warmUp.orderId} did not complete; LP bot: ${botLog().slice(-600)}`);
  }
}

/**
 * The settlement scenario's parties on a running Ferry (WORKER=true): a money mover and a liquidity provider
 * created through the CLI, the reference LP bot (`ferry lp`, streaming over WebSocket) in its own process, the
 * offerer's allowance for the escrow, and a watcher on each chain. `run` measures one batch of swaps.
 */
export async function prepareSettlement(
  server: RunningServer,
  options: { dataDir: string; databaseUrl: string },
) {
  const { mm, lp } = await createSettlementAccounts(options);
  const { chainA, chainB, usdcA, usdcB } = settlementChains(options.dataDir);
  await ensureAllowance(chainClients(chainA, offerer), usdcA.address, chainA.contracts.escrow, maxUint256);

  const bot = startLpBot(server.baseUrl, lp.apiKey, LP_KEY, path.join(options.dataDir, 'lp-journal.sqlite'));
  const watches = { input: await watchChain(chainA.rpcUrl), output: await watchChain(chainB.rpcUrl) };
  const client = createFerryClient({ baseUrl: server.baseUrl, apiKey: mm.apiKey });
  const times = new Map<string, SwapTimes>();
  const stream = followSwapEvents(server.baseUrl, mm.apiKey, times);
  await stream.ready;
  const clients = {
    input: createPublicClient({ transport: http(chainA.rpcUrl) }),
    output: createPublicClient({ transport: http(chainB.rpcUrl) }),
  };

  async function oneSwap(): Promise<SwapTimes | string> {
    const { quoteId: quoteRequestId } = await client.quoteRequests.create({
      offerer: offerer.address,
      recipient: recipient.address,
      inputToken: usdcA!.address,
      outputToken: usdcB!.address,
      inputAmount: '25000000',
      inputChain: chainA!.name,
      outputChain: chainB!.name,
    });
    const deadline = Date.now() + 60_000;
    let quote = null;
    while (!quote && Date.now() < deadline) {
      quote = (await client.quotes.list({ quoteRequestId, status: 'active' })).quotes[0] ?? null;
      if (!quote) await sleep(20);
    }
    if (!quote) return `no quote for ${quoteRequestId} within 60 s`;
    await client.quotes.accept(quote.id);
    const signature = await signQuote(offerer, quote.typedData);
    const t: SwapTimes = { orderId: quote.orderId, sentAt: Date.now(), events: {}, ...UNSETTLED };
    times.set(quote.orderId, t);
    await client.swaps.execute({ orderId: quote.orderId, quoteId: quote.id, signature });
    return t;
  }

  // One unrecorded swap first: the bot process is up, subscribed and has made its first approvals, so the
  // measured swaps see a running market maker, not one still starting (tsx compiling it on a loaded machine).
  await warmUp(oneSwap, bot.log);

  return {
    chains: [chainA.rpcUrl, chainB.rpcUrl] as const,

    /** `count` swaps, one started every `intervalMs` (open loop), each followed to `completed`. */
    async run(
      label: string,
      count: number,
      intervalMs: number,
      timeoutMs: number,
      blockSeconds: number | null,
    ): Promise<SettlementResult> {
      const started = Date.now();
      const launched: Promise<SwapTimes | string>[] = [];
      for (let i = 0; i < count; i++) {
        const wait = started + i * intervalMs - Date.now();
        if (wait > 0) await sleep(wait);
        launched.push(oneSwap().catch((e: unknown) => `swap failed: ${String(e).slice(0, 200)}`));
      }
      const outcomes = await Promise.all(launched);
      const swaps = outcomes.filter((o): o is SwapTimes => typeof o !== 'string');
      const failures = outcomes.filter((o): o is string => typeof o === 'string');
      const until = Date.now() + timeoutMs;
      while (swaps.some((s) => s.completedReceivedAt === null && !s.failed) && Date.now() < until) {
        await sleep(50);
      }
      const seconds = (Date.now() - started) / 1000;
      const measured: MeasuredSwap[] = [];
      for (const s of swaps) {
        if (s.failed) failures.push(`${s.orderId} ${s.failed}`);
        if (s.completedReceivedAt === null) {
          if (!s.failed) failures.push(`${s.orderId} not completed within ${timeoutMs} ms`);
          continue;
        }
        const order = await client.orders.get(s.orderId);
        const txs = [
          await txTimes(watches.input, clients.input, order.details.srcChainTxHash as Hex | null),
          await txTimes(watches.output, clients.output, order.details.dstChainTxHash as Hex | null),
          await txTimes(watches.input, clients.input, order.details.settlementTxHash as Hex | null),
        ];
        measured.push({ swap: { ...s, completedReceivedAt: s.completedReceivedAt }, txs });
      }
      return settlementResult(
        { label, count, seconds, blockSeconds },
        measured,
        failures,
        { input: chainA.confirmations, output: chainB.confirmations },
        bot.log(),
      );
    },

    /** Switches both devnets from mining on every transaction to a block every `seconds`. */
    async intervalMining(seconds: number) {
      for (const url of [chainA.rpcUrl, chainB.rpcUrl]) {
        await rpc(url, 'evm_setAutomine', [false]);
        await rpc(url, 'evm_setIntervalMining', [seconds]);
      }
    },

    botOutput: () => bot.log(),

    async close() {
      stream.close();
      watches.input.close();
      watches.output.close();
      await bot.stop();
    },
  };
}
