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
 * Every loop is bounded by a count or a deadline; everything listens on 127.0.0.1 only. The traffic mix is in
 * soak-traffic.ts, the liquidity provider in soak-liquidity-provider.ts, the assertions in soak-verdict.ts.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { approveMax, chainClients } from './soak-chains.ts';
import { lpWallet, startLiquidityProvider } from './soak-liquidity-provider.ts';
import {
  createSoakHttp,
  followStream,
  freePort,
  orderStatuses,
  percentile,
  rssBytes,
  type StreamLog,
} from './soak-probes.ts';
import { type Ctx, createTraffic, MAX_IN_FLIGHT, offerer, type SwapRecord, sleep } from './soak-traffic.ts';
import { checkOrders, checkResponses, checkRss, checkStream, TERMINAL } from './soak-verdict.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SHORT = process.argv.includes('--short');
const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? (SHORT ? 30 : 180));
const CALIBRATE_SECONDS = Number(process.env.SOAK_CALIBRATE_SECONDS ?? (SHORT ? 4 : 10));
const CONFIGURED_RATE = process.env.SOAK_RATE ? Number(process.env.SOAK_RATE) : null;
const LOAD_FACTOR = 0.8;
const SWAPS_PER_SECOND = Number(process.env.SOAK_SWAPS_PER_SECOND ?? 3);
const DRAIN_MS = Number(process.env.SOAK_DRAIN_MS ?? 120_000);
// The last third may be up to 20% (plus 16 MiB) above the middle third. A 30 s short run is still inside V8's
// warm-up (the heap grows towards its working size), so there the check only catches runaway growth; the full
// run is the leak check.
const RSS_SLACK = SHORT ? 1.6 : 1.2;
const RSS_ALLOWANCE = (SHORT ? 64 : 16) * 1024 * 1024;
const FILL_WINDOW_SECONDS = 60;
const OPEN_WINDOW_SECONDS = 60;

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
const http = createSoakHttp(baseUrl);
const { stats, api } = http;
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
// The event stream (followStream, soak-probes.ts) and the traffic (soak-traffic.ts).

const stream: StreamLog = { events: [], error: null };
const streamAbort = new AbortController();
const { swaps, drive } = createTraffic(http, fail);

// ---------------------------------------------------------------------------------------------------------------

/** Accounts for both sides, the approvals the swaps and fills need, and the stream followed. */
async function setUp(): Promise<Ctx> {
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
  return ctx;
}

/** Capacity: the same mix, closed loop, no swaps (their pace is fixed separately). */
async function targetRate(ctx: Ctx): Promise<{ target: number; measured: number | null }> {
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
  return { target, measured };
}

/** Waits (bounded) until every swap has reached the point `settled` asks for; returns the last statuses. */
async function waitForOrders(
  deadline: number,
  settled: (statuses: Awaited<ReturnType<typeof orderStatuses>>) => boolean,
) {
  let statuses = await orderStatuses(databaseUrl);
  while (Date.now() < deadline) {
    statuses = await orderStatuses(databaseUrl);
    if (settled(statuses)) break;
    await sleep(500);
  }
  return statuses;
}

const awaitingFill = (s: SwapRecord, status: string | undefined) =>
  status === 'created' || status === 'filled' || (!s.leaveUnfilled && status === 'deposited');

/** Moves both chains past every fill deadline (anvil time travel). */
async function passFillDeadlines(ctx: Ctx): Promise<void> {
  for (const chain of ctx.chains.slice(0, 2)) {
    const client = chainClients(chain).public;
    await client.request({
      method: 'evm_increaseTime' as never,
      params: [OPEN_WINDOW_SECONDS + FILL_WINDOW_SECONDS + 300] as never,
    });
    await client.request({ method: 'evm_mine' as never, params: [] as never });
  }
}

const mib = (bytes: number) => +(bytes / 2 ** 20).toFixed(1);

async function main(): Promise<void> {
  console.log(`soak: ${SOAK_SECONDS} s of traffic${SHORT ? ' (short mode)' : ''}; data in ${dataDir}`);
  await startServer();
  const pid = server!.pid!;
  const ctx = await setUp();
  const { target, measured } = await targetRate(ctx);
  stats.latencies = [];

  const lpBot = startLiquidityProvider(ctx, api, swaps, fail);
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
  await waitForOrders(
    drainDeadline,
    (statuses) => ![...swaps.values()].some((s) => awaitingFill(s, statuses.get(s.orderId)?.status)),
  );
  await lpBot.stop();

  // Drain 2: the unfilled ones pass their fill deadline on both chains, and refund. The worker refunds only
  // once the output chain, where fills are still possible until then, is past it too.
  await passFillDeadlines(ctx);
  const statuses = await waitForOrders(drainDeadline, (statuses) =>
    [...statuses.values()].every((s) => TERMINAL.has(s.status)),
  );

  checkResponses(stats, fail);
  const byStatus = checkOrders(statuses, swaps, fail);
  const { middle, last } = checkRss(rss, RSS_SLACK, RSS_ALLOWANCE, fail);
  const log = await checkStream(databaseUrl, stream, streamAbort, fail);

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
      first: mib(rss[0]?.bytes ?? 0),
      middleThird: mib(middle),
      lastThird: mib(last),
      max: mib(Math.max(...rss.map((r) => r.bytes))),
      samples: rss.length,
    },
    events: {
      inLog: log.length,
      orderEventsInLog: log.filter((e) => e.type.startsWith('order.')).length,
      streamed: stream.events.length,
    },
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
