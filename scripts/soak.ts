/**
 * Soak / load test: one Ferry instance (`ferry start`, devnets, settlement worker on) in a child process, driven
 * from this process with mixed traffic at ~80% of the capacity measured at the start (or SOAK_RATE requests/s).
 *
 *   npm run soak                 SOAK_SECONDS (default 180) of traffic
 *   npm run soak -- --short      30 s (what CI runs)
 *
 * Traffic: public reads, authenticated reads, quote requests, quotes, accepts, and full swaps with real EIP-712
 * signatures (the offerer approved the escrow once); a liquidity provider fills deposited orders on the output
 * chain with viem; some orders are deliberately left unfilled and must be refunded (anvil time travel on the input
 * chain at the end moves them past their fill deadline). Assertions, each failing the run (exit code 1):
 *   - no 5xx (and no transport error);
 *   - after the drain (bounded), no order outside a terminal state; filled ones completed, unfilled ones refunded;
 *   - the server's RSS does not keep growing (average of the last third of the traffic vs the middle third);
 *   - the SSE stream (GET /api/public/stream) delivered every order event of the event log exactly once.
 * Every loop is bounded by a count or a deadline; everything listens on 127.0.0.1 only.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS } from '../src/chains/devnet.ts';
import { approveMax, chainClients } from './soak-chains.ts';
import {
  createSoakHttp,
  eventLog,
  followStream,
  freePort,
  orderStatuses,
  percentile,
  rssBytes,
  type StreamLog,
} from './soak-probes.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SHORT = process.argv.includes('--short');
const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? (SHORT ? 30 : 180));
const CALIBRATE_SECONDS = Number(process.env.SOAK_CALIBRATE_SECONDS ?? (SHORT ? 4 : 10));
const CONFIGURED_RATE = process.env.SOAK_RATE ? Number(process.env.SOAK_RATE) : null;
const LOAD_FACTOR = 0.8;
const SWAPS_PER_SECOND = Number(process.env.SOAK_SWAPS_PER_SECOND ?? 3);
const UNFILLED_SHARE = 0.15;
const MAX_IN_FLIGHT = 64;
const DRAIN_MS = Number(process.env.SOAK_DRAIN_MS ?? 120_000);
// The last third may be up to 20% (plus 16 MiB) above the middle third. A 30 s short run is still inside V8's
// warm-up (the heap grows towards its working size), so there the check only catches runaway growth; the full
// run is the leak check.
const RSS_SLACK = SHORT ? 1.6 : 1.2;
const RSS_ALLOWANCE = (SHORT ? 64 : 16) * 1024 * 1024;
const FILL_WINDOW_SECONDS = 60;
const OPEN_WINDOW_SECONDS = 60;

const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient = privateKeyToAccount(ANVIL_KEYS[3]);
const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const fillAbi = loadArtifact('FerryFill').abi;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const failures: string[] = [];
const fail = (message: string) => {
  failures.push(message);
  console.error(`FAIL: ${message}`);
};

// ---------------------------------------------------------------------------------------------------------------
// The server under test.

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-soak-'));
const databaseUrl = `sqlite:${path.join(dataDir, 'ferry.sqlite')}`;
const [port, portA, portB] = [await freePort(), await freePort(), await freePort()];
const baseUrl = `http://127.0.0.1:${port}`;
// Every request counted by status, with its latency; 5xx and transport errors kept for the verdict.
const { stats, api } = createSoakHttp(baseUrl);
const serverEnv = {
  ...process.env,
  HOST: '127.0.0.1',
  PORT: String(port),
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl,
  CHAIN_REGISTRY: '',
  DEVNET_PORT_A: String(portA),
  DEVNET_PORT_B: String(portB),
  WORKER: 'true',
  WORKER_POLL_MS: '100',
  FILL_WINDOW_SECONDS: String(FILL_WINDOW_SECONDS),
  OPEN_WINDOW_SECONDS: String(OPEN_WINDOW_SECONDS),
  RATE_LIMIT_API_KEY: '1000000',
  RATE_LIMIT_SESSION: '1000000',
  RATE_LIMIT_IP: '1000000',
  LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'warn',
  REDIS_URL: '',
};
const serverLog = fs.openSync(path.join(dataDir, 'server.log'), 'a');
let server: ChildProcess | null = null;

async function startServer(): Promise<void> {
  server = spawn(process.execPath, ['bin/ferry.js', 'start'], {
    cwd: ROOT,
    env: serverEnv,
    stdio: ['ignore', serverLog, serverLog],
  });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null)
      throw new Error(`ferry start exited with ${server.exitCode}; see ${dataDir}/server.log`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) return;
    } catch {}
    await sleep(200);
  }
  throw new Error('ferry start did not become ready within 90 s');
}

async function stopServer(): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server!.once('exit', resolve));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server?.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function cli(args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/ferry.js', ...args, '--json'], {
    cwd: ROOT,
    env: serverEnv,
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

// ---------------------------------------------------------------------------------------------------------------
// The event stream: followStream (soak-probes.ts).

const stream: StreamLog = { events: [], error: null };
const streamed = stream.events;
const streamAbort = new AbortController();

// ---------------------------------------------------------------------------------------------------------------
// Traffic.

interface Ctx {
  mmKey: string;
  lpKey: string;
  chains: {
    name: string;
    chainId: number;
    rpcUrl: string;
    contracts: { escrow: Hex; fill: Hex };
    tokens: { symbol: string; address: Hex }[];
  }[];
}
interface SwapRecord {
  orderId: string;
  leaveUnfilled: boolean;
  typedData: any;
  filled: boolean;
}
const swaps = new Map<string, SwapRecord>();
const knownOrderIds: string[] = [];

function quoteRequestBody(ctx: Ctx, amount: string) {
  const [a, b] = ctx.chains;
  return {
    recipient: recipient.address,
    offerer: offerer.address,
    inputToken: a!.tokens.find((t) => t.symbol === 'USDC')!.address,
    outputToken: b!.tokens.find((t) => t.symbol === 'USDC')!.address,
    inputAmount: amount,
    inputChain: a!.name,
    outputChain: b!.name,
  };
}

const randomAmount = () => String(1_000_000 + Math.floor(Math.random() * 1_000_000));

/** Creates a quote request, and optionally quotes, accepts and executes it. Returns how far it got. */
async function flow(ctx: Ctx, depth: 'request' | 'quote' | 'accept' | 'swap'): Promise<void> {
  const inputAmount = randomAmount();
  const qr = await api('POST', '/api/v1/quote-requests', {
    apiKey: ctx.mmKey,
    body: quoteRequestBody(ctx, inputAmount),
  });
  if (qr.status !== 201 || depth === 'request') return;
  const quote = await api('POST', '/api/v1/quotes', {
    apiKey: ctx.lpKey,
    body: { quoteRequestId: qr.body.data.quoteId, outputAmount: String(BigInt(inputAmount) - 10_000n) },
  });
  if (quote.status !== 201 || depth === 'quote') return;
  const q = quote.body.data;
  const accepted = await api('POST', `/api/v1/quotes/${q.quoteId}/accept`, { apiKey: ctx.mmKey });
  if (accepted.status !== 200 || depth === 'accept') return;
  const signature = await offerer.signTypedData(q.typedData);
  const swap = await api('POST', '/api/v1/swaps', {
    apiKey: ctx.mmKey,
    body: { orderId: q.orderId, quoteId: q.quoteId, signature },
  });
  if (swap.status !== 201) {
    fail(`swap ${q.orderId} -> ${swap.status} ${JSON.stringify(swap.body).slice(0, 200)}`);
    return;
  }
  swaps.set(q.orderId, {
    orderId: q.orderId,
    leaveUnfilled: Math.random() < UNFILLED_SHARE,
    typedData: q.typedData,
    filled: false,
  });
  knownOrderIds.push(q.orderId);
}

async function publicRead(): Promise<void> {
  const r = Math.random();
  if (r < 0.5) await api('GET', `/api/public/orders?pageSize=${1 + Math.floor(Math.random() * 50)}`);
  else if (r < 0.8) await api('GET', '/api/public/quotes/recent');
  else if (r < 0.9) await api('GET', '/api/public/chains');
  else await api('GET', `/api/public/orders?address=${offerer.address}`);
}

async function authenticatedRead(ctx: Ctx): Promise<void> {
  const r = Math.random();
  if (r < 0.35) await api('GET', '/api/v1/orders?pageSize=20', { apiKey: ctx.mmKey });
  else if (r < 0.6)
    await api('GET', '/api/v1/quote-requests?timeWindow=600&pageSize=20', { apiKey: ctx.mmKey });
  else if (r < 0.8 && knownOrderIds.length > 0) {
    const id = knownOrderIds[Math.floor(Math.random() * knownOrderIds.length)];
    await api('GET', `/api/v1/orders/${id}`, { apiKey: ctx.mmKey });
  } else await api('GET', '/api/v1/quote-requests?status=open&pageSize=20', { apiKey: ctx.lpKey });
}

/** One unit of traffic, drawn from the mix. Swaps are paced separately (each one costs three transactions). */
async function action(ctx: Ctx, allowSwap: boolean): Promise<void> {
  const r = Math.random();
  if (allowSwap) return flow(ctx, 'swap');
  if (r < 0.45) return publicRead();
  if (r < 0.75) return authenticatedRead(ctx);
  if (r < 0.87) return flow(ctx, 'request');
  if (r < 0.95) return flow(ctx, 'quote');
  return flow(ctx, 'accept');
}

/** Runs the mix for `seconds`: open loop at `rate` requests/s, or closed loop (as fast as it goes) when null. */
async function drive(
  ctx: Ctx,
  seconds: number,
  rate: number | null,
  swapsPerSecond: number,
  onTick?: () => void,
) {
  const started = performance.now();
  const requestsAtStart = stats.requests;
  const end = started + seconds * 1000;
  const inFlight = new Set<Promise<void>>();
  let skipped = 0;
  let launchedSwaps = 0;
  let launched = 0;
  // Requests per action, learnt as we go, turn the request rate into an action rate.
  const perAction = () => Math.max(1, (stats.requests - requestsAtStart) / Math.max(1, launched));
  let lastTick = performance.now();
  while (performance.now() < end) {
    const now = performance.now();
    const elapsed = (now - started) / 1000;
    const wantSwaps = Math.floor(elapsed * swapsPerSecond);
    const wantActions = rate === null ? Number.POSITIVE_INFINITY : Math.floor((elapsed * rate) / perAction());
    while ((launchedSwaps < wantSwaps || launched < wantActions) && inFlight.size < MAX_IN_FLIGHT) {
      const swap = launchedSwaps < wantSwaps;
      if (swap) launchedSwaps++;
      launched++;
      const p: Promise<void> = action(ctx, swap)
        .catch((error) => {
          stats.transportErrors.push(String(error));
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    if (rate !== null && launched < wantActions && inFlight.size >= MAX_IN_FLIGHT) skipped++;
    if (onTick && now - lastTick >= 1000) {
      lastTick = now;
      onTick();
    }
    await (inFlight.size >= MAX_IN_FLIGHT || rate !== null
      ? sleep(5)
      : Promise.race([...inFlight, sleep(5)]));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  return {
    requestsPerSecond: (stats.requests - requestsAtStart) / elapsed,
    saturatedTicks: skipped,
    swaps: launchedSwaps,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The liquidity provider: fills deposited orders on the output chain, one transaction at a time.

function startLiquidityProvider(ctx: Ctx) {
  const out = ctx.chains[1]!;
  const c = chainClients(out);
  const wallet = c.wallet(lpWallet);
  let running = true;
  let fills = 0;
  const loop = (async () => {
    while (running) {
      const deposited = await api('GET', '/api/v1/orders?status=deposited&pageSize=100', {
        apiKey: ctx.lpKey,
      });
      for (const order of deposited.body?.data?.orders ?? []) {
        const record = swaps.get(order.orderId);
        if (!record || record.leaveUnfilled || record.filled) continue;
        const m = record.typedData.message;
        try {
          const hash = await wallet.writeContract({
            address: out.contracts.fill,
            abi: fillAbi,
            functionName: 'fill',
            args: [
              order.blockchainOrderId,
              m.outputToken,
              BigInt(m.outputAmount),
              m.recipient,
              BigInt(m.fillDeadline),
            ],
          });
          await c.public.waitForTransactionReceipt({ hash });
          record.filled = true;
          fills++;
        } catch (error) {
          fail(`LP fill of ${order.orderId} failed: ${String(error).slice(0, 300)}`);
          record.filled = true; // never retry a broken fill in a loop
        }
      }
      await sleep(300);
    }
  })();
  return {
    get fills() {
      return fills;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------

const TERMINAL = new Set(['completed', 'failed', 'refunded']);

async function main(): Promise<void> {
  console.log(`soak: ${SOAK_SECONDS} s of traffic${SHORT ? ' (short mode)' : ''}; data in ${dataDir}`);
  await startServer();
  const pid = server!.pid!;
  const chains = (await api('GET', '/api/public/chains')).body.data.chains as Ctx['chains'];
  const [mm, lp] = [
    await cli(['accounts', 'create', '--type', 'moneyMover', '--name', 'soak-mm']),
    await cli([
      'accounts',
      'create',
      '--type',
      'liquidityProvider',
      '--name',
      'soak-lp',
      '--address',
      lpWallet.address,
    ]),
  ];
  const ctx: Ctx = { mmKey: mm.apiKey, lpKey: lp.apiKey, chains };
  const [a, b] = chains;
  await approveMax(a!, offerer, a!.tokens.find((t) => t.symbol === 'USDC')!.address, a!.contracts.escrow);
  await approveMax(b!, lpWallet, b!.tokens.find((t) => t.symbol === 'USDC')!.address, b!.contracts.fill);
  await followStream(baseUrl, stream, streamAbort.signal);

  // Capacity: the same mix, closed loop, no swaps (their pace is fixed separately).
  let target = CONFIGURED_RATE;
  let measured: number | null = null;
  if (target === null) {
    const calibration = await drive(ctx, CALIBRATE_SECONDS, null, 0);
    measured = calibration.requestsPerSecond;
    target = Math.max(5, Math.floor(measured * LOAD_FACTOR));
    console.log(
      `capacity ~${measured.toFixed(0)} req/s (closed loop, ${MAX_IN_FLIGHT} in flight); target ${target} req/s`,
    );
  }
  stats.latencies = [];

  const lpBot = startLiquidityProvider(ctx);
  const rss: { t: number; bytes: number }[] = [];
  const sampleEvery = SHORT ? 1 : 3;
  let tick = 0;
  const trafficStart = Date.now();
  const load = await drive(ctx, SOAK_SECONDS, target, SWAPS_PER_SECOND, () => {
    if (tick++ % sampleEvery === 0) rss.push({ t: (Date.now() - trafficStart) / 1000, bytes: rssBytes(pid) });
  });
  console.log(
    `traffic done: ${load.requestsPerSecond.toFixed(0)} req/s achieved, ${load.swaps} swaps launched`,
  );

  // Drain 1: every order deposited (none left created), every order meant to be filled completed.
  const drainDeadline = Date.now() + DRAIN_MS;
  let statuses = await orderStatuses(databaseUrl);
  while (Date.now() < drainDeadline) {
    statuses = await orderStatuses(databaseUrl);
    const pending = [...swaps.values()].filter((s) => {
      const st = statuses.get(s.orderId)?.status;
      return st === 'created' || st === 'filled' || (!s.leaveUnfilled && st === 'deposited');
    });
    if (pending.length === 0) break;
    await sleep(500);
  }
  await lpBot.stop();

  // Drain 2: the unfilled ones pass their fill deadline on both chains (anvil time travel), and refund. The
  // worker refunds only once the output chain, where fills are still possible until then, is past it too.
  for (const chain of [a!, b!]) {
    const client = chainClients(chain).public;
    await client.request({
      method: 'evm_increaseTime' as never,
      params: [OPEN_WINDOW_SECONDS + FILL_WINDOW_SECONDS + 300] as never,
    });
    await client.request({ method: 'evm_mine' as never, params: [] as never });
  }
  while (Date.now() < drainDeadline) {
    statuses = await orderStatuses(databaseUrl);
    if ([...statuses.values()].every((s) => TERMINAL.has(s.status))) break;
    await sleep(500);
  }

  // Assertions.
  if (stats.serverErrors.length > 0)
    fail(
      `${stats.serverErrors.length} responses were 5xx, e.g. ${stats.serverErrors.slice(0, 3).join(' | ')}`,
    );
  if (stats.transportErrors.length > 0)
    fail(
      `${stats.transportErrors.length} transport errors, e.g. ${stats.transportErrors.slice(0, 3).join(' | ')}`,
    );

  const byStatus = new Map<string, number>();
  for (const s of statuses.values()) byStatus.set(s.status, (byStatus.get(s.status) ?? 0) + 1);
  const stuck = [...statuses.entries()].filter(([, s]) => !TERMINAL.has(s.status));
  if (stuck.length > 0)
    fail(
      `${stuck.length} orders not terminal after the drain: ${stuck
        .slice(0, 5)
        .map(([id, s]) => `${id}=${s.status}`)
        .join(', ')}`,
    );
  for (const s of swaps.values()) {
    const got = statuses.get(s.orderId);
    const want = s.leaveUnfilled ? 'refunded' : 'completed';
    if (got?.status !== want)
      fail(`order ${s.orderId} is ${got?.status} (${got?.failure ?? ''}), expected ${want}`);
  }

  const third = Math.floor(rss.length / 3);
  const avg = (xs: { bytes: number }[]) => xs.reduce((sum, x) => sum + x.bytes, 0) / Math.max(1, xs.length);
  const middle = avg(rss.slice(third, 2 * third));
  const last = avg(rss.slice(2 * third));
  if (third < 2) fail(`too few RSS samples (${rss.length})`);
  else if (last > middle * RSS_SLACK + RSS_ALLOWANCE) {
    fail(
      `RSS keeps growing: middle third ${(middle / 2 ** 20).toFixed(1)} MiB, last third ${(last / 2 ** 20).toFixed(1)} MiB`,
    );
  }

  // Every order event of the log, exactly once on the stream (wait, bounded, for the stream to catch up).
  let log = await eventLog(databaseUrl);
  const streamDeadline = Date.now() + 15_000;
  while (Date.now() < streamDeadline && (streamed.at(-1)?.id ?? 0) < (log.at(-1)?.id ?? 0)) {
    await sleep(200);
    log = await eventLog(databaseUrl);
  }
  streamAbort.abort();
  if (stream.error) fail(stream.error);
  const counts = new Map<number, number>();
  for (const e of streamed) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
  const orderEvents = log.filter((e) => e.type.startsWith('order.'));
  const missing = orderEvents.filter((e) => !counts.has(e.id));
  const duplicated = [...counts.entries()].filter(([, n]) => n > 1);
  const logIds = new Set(log.map((e) => e.id));
  const unknown = streamed.filter((e) => !logIds.has(e.id));
  if (missing.length > 0)
    fail(
      `${missing.length} order events never arrived on the stream, e.g. ${missing
        .slice(0, 5)
        .map((e) => e.id)
        .join(', ')}`,
    );
  if (duplicated.length > 0)
    fail(
      `${duplicated.length} events arrived more than once, e.g. ${duplicated
        .slice(0, 5)
        .map(([id, n]) => `${id}x${n}`)
        .join(', ')}`,
    );
  if (unknown.length > 0) fail(`${unknown.length} streamed events are not in the event log`);
  for (let i = 1; i < streamed.length; i++) {
    if (streamed[i]!.id <= streamed[i - 1]!.id) {
      fail(`stream ids not increasing at ${streamed[i - 1]!.id} -> ${streamed[i]!.id}`);
      break;
    }
  }

  const summary = {
    seconds: SOAK_SECONDS,
    capacityRequestsPerSecond: measured === null ? null : Math.round(measured),
    targetRequestsPerSecond: target,
    achievedRequestsPerSecond: Math.round(load.requestsPerSecond),
    saturatedTicks: load.saturatedTicks,
    requests: stats.requests,
    statuses: Object.fromEntries([...stats.byStatus].sort(([x], [y]) => x - y)),
    latencyMs: {
      p50: +percentile(stats.latencies, 50).toFixed(1),
      p99: +percentile(stats.latencies, 99).toFixed(1),
    },
    swaps: swaps.size,
    lpFills: lpBot.fills,
    orders: Object.fromEntries(byStatus),
    rssMiB: {
      first: +((rss[0]?.bytes ?? 0) / 2 ** 20).toFixed(1),
      middleThird: +(middle / 2 ** 20).toFixed(1),
      lastThird: +(last / 2 ** 20).toFixed(1),
      max: +(Math.max(...rss.map((r) => r.bytes)) / 2 ** 20).toFixed(1),
      samples: rss.length,
    },
    events: { inLog: log.length, orderEventsInLog: orderEvents.length, streamed: streamed.length },
    failures: failures.length,
  };
  console.log(JSON.stringify(summary, null, 2));
}

let exitCode = 0;
try {
  await main();
  exitCode = failures.length > 0 ? 1 : 0;
} catch (error) {
  console.error('soak aborted:', error);
  exitCode = 1;
} finally {
  streamAbort.abort();
  await stopServer();
  fs.closeSync(serverLog);
  if (exitCode === 0 && !process.env.SOAK_KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
  else console.error(`server log and data kept in ${dataDir}`);
}
console.log(exitCode === 0 ? 'soak: PASS' : `soak: FAIL (${failures.length} failed assertions)`);
process.exit(exitCode);
