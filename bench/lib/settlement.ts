import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPublicClient, type Hex, http, maxUint256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createFerryClient, type FerryEvent, signQuote, subscribeWs } from '../../sdk/src/index.ts';
import { loadChainRegistryFile } from '../../src/chains/chain-registry.ts';
import { ANVIL_KEYS } from '../../src/chains/devnet.ts';
import { chainClients, ensureAllowance } from '../../src/chains/lp-chain-clients.ts';
import { type ChainWatch, rpc, watchChain } from './chain-watch.ts';
import { percentile } from './flow.ts';
import type { RunningServer } from './server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient = privateKeyToAccount(ANVIL_KEYS[3]);
const LP_KEY = ANVIL_KEYS[4];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STEPS = ['deposited', 'filled', 'completed'] as const;
type Step = (typeof STEPS)[number];

/** One swap's times, all on this machine's clock (ms). */
interface SwapTimes {
  orderId: string;
  sentAt: number;
  /** occurredAt of order.created and of each order.updated, by status (server clock, same machine). */
  events: Partial<Record<'created' | Step, number>>;
  completedReceivedAt: number | null;
  failed: string | null;
}

export interface StepBreakdown {
  /** From the previous status's event to the step's transaction entering the mempool: the actor (worker or LP bot). */
  readonly actP50Ms: number;
  /** In the mempool until a block held it (the chain's own time). */
  readonly chainP50Ms: number;
  /** From that block to Ferry's event for the step (confirmations, polling, the write). */
  readonly observeP50Ms: number;
  readonly observeP99Ms: number;
  /**
   * With interval blocks: the observe time allowed, one block beyond the chain's confirmations (the registry's
   * `confirmations` of the chain the step's transaction lands on, times the block time); null on instant chains.
   */
  readonly observeAllowanceMs: number | null;
  /** The whole step, previous event to this one. */
  readonly stepP50Ms: number;
  readonly stepP99Ms: number;
}

export interface SettlementResult {
  readonly blocks: string;
  readonly swaps: number;
  readonly completed: number;
  readonly failures: readonly string[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Σ over the three transactions of (block seen − pending seen), over the total, summed over swaps. */
  readonly chainShare: number;
  /** The same for the LP bot's part (deposited event → fill pending) and Ferry's (every other actor and observe part). */
  readonly lpShare: number;
  readonly ferryShare: number;
  readonly steps: Readonly<Record<Step, StepBreakdown>>;
  /** Transactions whose mempool entry the watcher did not see (their chain time counts as 0). */
  readonly unseenPending: number;
  readonly seconds: number;
  /** The end of the LP bot's log when something failed (its warnings), else empty. */
  readonly botOutput: string;
}

async function cliJson(env: Record<string, string>, args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/ferry.js', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return JSON.parse(stdout);
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
  const registry = loadChainRegistryFile(path.join(options.dataDir, 'chains.json'));
  const [chainA, chainB] = registry.chains;
  if (!chainA || !chainB) throw new Error('the registry needs two chains');
  const usdcA = chainA.tokens.find((t) => t.symbol === 'USDC');
  const usdcB = chainB.tokens.find((t) => t.symbol === 'USDC');
  if (!usdcA || !usdcB) throw new Error('USDC missing from the devnets');
  await ensureAllowance(chainClients(chainA, offerer), usdcA.address, chainA.contracts.escrow, maxUint256);

  const bot = spawn(
    process.execPath,
    [
      'bin/ferry.js',
      'lp',
      '--api-url',
      server.baseUrl,
      '--api-key',
      lp.apiKey,
      '--private-key',
      LP_KEY,
      '--spread-bps',
      '30',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: process.env.BENCH_LP_LOG_LEVEL ?? 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Ended with the bench even if it dies on an uncaught error.
  const endBot = () => bot.kill('SIGTERM');
  process.once('exit', endBot);
  let botLog = '';
  bot.stdout?.on('data', (c: Buffer) => {
    botLog = (botLog + c.toString()).slice(-20_000);
  });
  bot.stderr?.on('data', (c: Buffer) => {
    botLog = (botLog + c.toString()).slice(-20_000);
  });
  const watches = { input: await watchChain(chainA.rpcUrl), output: await watchChain(chainB.rpcUrl) };
  const client = createFerryClient({ baseUrl: server.baseUrl, apiKey: mm.apiKey });
  const times = new Map<string, SwapTimes>();
  const stream = subscribeWs({
    baseUrl: server.baseUrl,
    apiKey: mm.apiKey,
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
    const t: SwapTimes = {
      orderId: quote.orderId,
      sentAt: Date.now(),
      events: {},
      completedReceivedAt: null,
      failed: null,
    };
    times.set(quote.orderId, t);
    await client.swaps.execute({ orderId: quote.orderId, quoteId: quote.id, signature });
    return t;
  }

  async function txTimes(watch: ChainWatch, pub: typeof clients.input, hash: Hex | null | undefined) {
    if (!hash) return null;
    const receipt = await pub.getTransactionReceipt({ hash });
    const mined = watch.blockSeenAt(Number(receipt.blockNumber));
    if (mined === null) return null;
    const pending = watch.pendingSeenAt(hash);
    return { mined, pending };
  }

  // One unrecorded swap first: the bot process is up, subscribed and has made its first approvals, so the
  // measured swaps see a running market maker, not one still starting (tsx compiling it on a loaded machine).
  const warmUp = await oneSwap();
  if (typeof warmUp === 'string') throw new Error(`warm-up swap: ${warmUp}; LP bot: ${botLog.slice(-600)}`);
  const warmDeadline = Date.now() + 120_000;
  while (warmUp.completedReceivedAt === null && !warmUp.failed && Date.now() < warmDeadline) await sleep(50);
  if (warmUp.completedReceivedAt === null) {
    throw new Error(`warm-up swap ${warmUp.orderId} did not complete; LP bot: ${botLog.slice(-600)}`);
  }

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
      const totals: number[] = [];
      const step = Object.fromEntries(
        STEPS.map((s) => [
          s,
          { act: [] as number[], chain: [] as number[], observe: [] as number[], all: [] as number[] },
        ]),
      ) as Record<Step, { act: number[]; chain: number[]; observe: number[]; all: number[] }>;
      let chainSum = 0;
      let lpSum = 0;
      let ferrySum = 0;
      let totalSum = 0;
      let unseenPending = 0;
      for (const s of swaps) {
        if (s.failed) failures.push(`${s.orderId} ${s.failed}`);
        if (s.completedReceivedAt === null) {
          if (!s.failed) failures.push(`${s.orderId} not completed within ${timeoutMs} ms`);
          continue;
        }
        const total = s.completedReceivedAt - s.sentAt;
        totals.push(total);
        const order = await client.orders.get(s.orderId);
        const txs = [
          await txTimes(watches.input, clients.input, order.details.srcChainTxHash as Hex | null),
          await txTimes(watches.output, clients.output, order.details.dstChainTxHash as Hex | null),
          await txTimes(watches.input, clients.input, order.details.settlementTxHash as Hex | null),
        ];
        let chainTime = 0;
        STEPS.forEach((name, i) => {
          const before = i === 0 ? s.sentAt : s.events[STEPS[i - 1] as Step];
          const after = s.events[name];
          const tx = txs[i];
          if (before === undefined || after === undefined) return;
          step[name].all.push(after - before);
          if (!tx) return;
          const pending = tx.pending ?? tx.mined;
          if (tx.pending === null) unseenPending++;
          step[name].act.push(pending - before);
          step[name].chain.push(tx.mined - pending);
          step[name].observe.push(after - tx.mined);
          chainTime += tx.mined - pending;
          // The fill is the LP bot's move; the deposit and the settlement are Ferry's worker's.
          if (name === 'filled') lpSum += pending - before;
          else ferrySum += pending - before;
          ferrySum += after - tx.mined;
        });
        chainSum += chainTime;
        totalSum += total;
      }
      const p = (values: number[], q: number) =>
        percentile(
          [...values].sort((a, b) => a - b),
          q,
        );
      totals.sort((a, b) => a - b);
      return {
        blocks: label,
        swaps: count,
        completed: totals.length,
        failures: failures.slice(0, 5),
        p50Ms: percentile(totals, 50),
        p99Ms: percentile(totals, 99),
        chainShare: totalSum > 0 ? chainSum / totalSum : 0,
        lpShare: totalSum > 0 ? lpSum / totalSum : 0,
        ferryShare: totalSum > 0 ? ferrySum / totalSum : 0,
        steps: Object.fromEntries(
          STEPS.map((name) => {
            const v = step[name];
            // Deposit and settlement land on the input chain, the fill on the output chain.
            const confirmations = (name === 'filled' ? chainB : chainA).confirmations;
            return [
              name,
              {
                actP50Ms: p(v.act, 50),
                chainP50Ms: p(v.chain, 50),
                observeP50Ms: p(v.observe, 50),
                observeP99Ms: p(v.observe, 99),
                observeAllowanceMs: blockSeconds === null ? null : confirmations * blockSeconds * 1000,
                stepP50Ms: p(v.all, 50),
                stepP99Ms: p(v.all, 99),
              },
            ];
          }),
        ) as Record<Step, StepBreakdown>,
        unseenPending,
        seconds,
        botOutput: failures.length ? botLog.slice(-600) : '',
      };
    },

    /** Switches both devnets from mining on every transaction to a block every `seconds`. */
    async intervalMining(seconds: number) {
      for (const url of [chainA.rpcUrl, chainB.rpcUrl]) {
        await rpc(url, 'evm_setAutomine', [false]);
        await rpc(url, 'evm_setIntervalMining', [seconds]);
      }
    },

    botOutput: () => botLog,

    async close() {
      stream.close();
      watches.input.close();
      watches.output.close();
      process.off('exit', endBot);
      const exited = new Promise((r) => bot.once('exit', r));
      bot.kill('SIGTERM');
      const timer = setTimeout(() => bot.kill('SIGKILL'), 10_000);
      if (bot.exitCode === null) await exited;
      clearTimeout(timer);
    },
  };
}

/** A one-line summary of the per-step breakdown, for the report's notes. */
export function describeSteps(r: SettlementResult): string {
  return STEPS.map((name) => {
    const s = r.steps[name];
    return `→${name} p50 ${s.stepP50Ms} ms (actor ${s.actP50Ms}, chain ${s.chainP50Ms}, Ferry observes ${s.observeP50Ms}; observe p99 ${s.observeP99Ms})`;
  }).join('; ');
}
