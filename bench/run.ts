/**
 * `npm run bench`: Ferry under load against a bare Fastify baseline, on the embedded default (SQLite) and, when
 * BENCH_DATABASE_URL and BENCH_REDIS_URL are set, also on PostgreSQL + Redis. Writes bench/results/latest.json
 * and latest.md. See bench/README.md. Never part of `npm test`.
 *
 * Environment:
 *   BENCH_DURATION=10        seconds per scenario (default 10)
 *   BENCH_QUICK=1            smoke run: small seed, 2 s per scenario
 *   BENCH_DATABASE_URL=...   PostgreSQL server URL: a fresh database is created on it and dropped afterwards
 *   BENCH_REDIS_URL=...      Redis for the PostgreSQL run (rate limits and event fan-out shared through it)
 *   BENCH_ONLY=2,4           run only these scenarios (1 always runs: it is the reference)
 *   BENCH_CPU_PROF=1         start the Ferry server with --cpu-prof (profiles in bench/results/profiles)
 *   BENCH_CONNECTIONS=50     autocannon connections
 *   BENCH_RESULTS_DIR=...    where latest.json/md go (quick or partial runs: somewhere else than bench/results)
 *   BENCH_LP_LOG_LEVEL=warn  log level of scenario 11's reference LP bot
 *
 * Scenarios 8 (raw PostgreSQL writes) and 9 (two instances + a worker) need BENCH_DATABASE_URL (9 also
 * BENCH_REDIS_URL); 11 (settlement latency) starts its own Ferry with the worker on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { driveFanout, type FanoutResult } from './lib/fanout.ts';
import { driveFlow } from './lib/flow.ts';
import { drive, type LoadResult } from './lib/load.ts';
import { driveLpStream } from './lib/lp-stream.ts';
import { runMultiInstance } from './lib/multi-instance.ts';
import { createPgDatabase, measureRawPgWrites, type RawWriteResult } from './lib/pg-writes.ts';
import {
  type BackendRun,
  type BenchReport,
  machineInfo,
  type ScenarioRow,
  writeReport,
} from './lib/report.ts';
import {
  compareWithEmbedded,
  multiInstanceRows,
  rawPgRow,
  settlementRow,
  withRawPgRatio,
} from './lib/scenario-rows.ts';
import { OFFERER, Seeder } from './lib/seed.ts';
import { type RunningServer, startBareFanout, startBaseline, startFerry } from './lib/server.ts';
import { prepareSettlement } from './lib/settlement.ts';

const say = (line: string) => process.stderr.write(`${line}\n`);

const QUICK = process.env.BENCH_QUICK === '1';
const DURATION = Number(process.env.BENCH_DURATION ?? (QUICK ? 2 : 10));
const WARMUP = QUICK ? 0.5 : 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;
const SEED_ORDERS = Number(process.env.BENCH_SEED_ORDERS ?? (QUICK ? 5_000 : 100_000));
const SEED_EXTRA_REQUESTS = QUICK ? 1_000 : 12_000;
const LP_COUNT = 16;
const RESULTS = path.resolve(process.env.BENCH_RESULTS_DIR ?? path.join(import.meta.dirname, 'results'));
const PROFILE_DIR = path.join(RESULTS, 'profiles');
const nodeFlags = process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];

const wants = (id: string) => ONLY === null || ONLY.has(id) || ONLY.has(id.replace(/[ab]$/, ''));
const mb = (bytes: number) => bytes / 2 ** 20;

function row(
  id: string,
  name: string,
  r: LoadResult,
  baseline: number | ScenarioRow,
  target: { ratio?: number; rate?: number } = {},
  notes = '',
): ScenarioRow {
  const baselineRps = typeof baseline === 'number' ? baseline : baseline.rate;
  const ratio = r.reqPerSec / baselineRps;
  const pass =
    target.ratio !== undefined
      ? ratio >= target.ratio
      : target.rate !== undefined
        ? r.reqPerSec >= target.rate
        : null;
  const problems =
    r.non2xx + r.errors > 0
      ? ` non-2xx ${r.non2xx}, errors ${r.errors} (${JSON.stringify(r.statusCodes)}).`
      : '';
  return {
    id,
    name,
    unit: id === '6b' ? 'swaps/s' : 'req/s',
    rate: r.reqPerSec,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    cpuPercent: r.proc.cpuPercent,
    peakRssMb: mb(r.proc.peakRssBytes),
    ratio,
    target:
      target.ratio !== undefined
        ? `≥ ${target.ratio} × baseline`
        : target.rate !== undefined
          ? `≥ ${target.rate}/s`
          : null,
    pass,
    notes:
      `${notes}${problems}${typeof baseline === 'number' ? '' : ` Baseline measured right after: ${baselineRps.toFixed(0)} req/s.`}`.trim(),
    raw: {
      ...r,
      baselineReqPerSec: baselineRps,
      cpuMicrosPerRequest: (r.proc.cpuPercent * 1e4) / r.reqPerSec,
    },
  };
}

function logRow(s: ScenarioRow) {
  say(
    `  ${s.id.padEnd(3)} ${s.name.padEnd(44)} ${s.rate.toFixed(0).padStart(7)} ${s.unit}  p50 ${s.p50Ms.toFixed(1)} ms  p99 ${s.p99Ms.toFixed(1)} ms  cpu ${s.cpuPercent.toFixed(0)} %  rss ${s.peakRssMb.toFixed(0)} MB${s.ratio === null ? '' : `  ${s.ratio.toFixed(2)}×`}${s.vs ? `  ${s.vs.ratio.toFixed(2)} × ${s.vs.of}` : ''}${s.pass === false ? '  MISS' : ''}${s.notes ? `  (${s.notes})` : ''}`,
  );
}

/**
 * The baseline process stays up (idle) for the whole run and is measured again right before every API scenario:
 * the machine is shared, so each ratio compares two measurements taken a few seconds apart.
 */
async function measureBaseline(server: RunningServer, warmup = false): Promise<ScenarioRow> {
  if (warmup) await drive(server, { path: '/baseline', connections: CONNECTIONS, durationSeconds: WARMUP });
  const r = await drive(server, { path: '/baseline', connections: CONNECTIONS, durationSeconds: DURATION });
  return row('1', 'baseline: bare Fastify GET, small JSON', r, r.reqPerSec);
}

async function runBackend(
  backend: string,
  baselineServer: RunningServer,
  options: { databaseUrl?: string; redisUrl?: string; rawPg?: RawWriteResult },
): Promise<BackendRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-bench-'));
  const databaseUrl = options.databaseUrl ?? `sqlite:${path.join(dataDir, 'ferry.sqlite')}`;
  say(`\n== ${backend}: starting Ferry (data ${dataDir})`);
  const server = await startFerry({ dataDir, databaseUrl, redisUrl: options.redisUrl, nodeFlags });
  const scenarios: ScenarioRow[] = [];
  const baselines: ScenarioRow[] = [];
  // Measured right after each API scenario, so each ratio compares two adjacent measurements.
  const nextBaseline = async () => {
    const b = await measureBaseline(baselineServer);
    baselines.push(b);
    return b;
  };
  let seeder: Seeder | null = null;
  try {
    seeder = await Seeder.open(databaseUrl, path.join(dataDir, 'chains.json'));
    const accounts = await seeder.createAccounts(LP_COUNT);
    say(
      `   seeding ${SEED_ORDERS} orders and ${SEED_ORDERS + SEED_EXTRA_REQUESTS} quote requests with quotes`,
    );
    const seed = await seeder.seedHistory(SEED_ORDERS, SEED_EXTRA_REQUESTS, say);
    say(`   seeded in ${seed.seconds.toFixed(1)} s (${seed.quotes} quotes)`);
    const [chainA, chainB] = seeder.chains;
    if (!chainA || !chainB) throw new Error('the registry needs two chains');
    const route = {
      inputChain: chainA.name,
      outputChain: chainB.name,
      inputToken: chainA.tokens[0] as string,
      outputToken: chainB.tokens[0] as string,
    };
    const mmKey = { 'x-api-key': accounts.moneyMover.apiKey };
    const load = { connections: CONNECTIONS, durationSeconds: DURATION };
    const warm = { connections: CONNECTIONS, durationSeconds: WARMUP };
    const record = (row: ScenarioRow) => {
      const s = options.rawPg ? withRawPgRatio(row, options.rawPg) : row;
      scenarios.push(s);
      logRow(s);
    };

    if (wants('2')) {
      const spec = { path: '/api/public/orders?pageSize=50', ...load };
      await drive(server, { ...spec, ...warm });
      record(
        row('2', 'GET /api/public/orders (page of 50)', await drive(server, spec), await nextBaseline(), {
          ratio: 0.35,
        }),
      );
    }

    if (wants('3')) {
      const ids = seed.moneyMoverOrderIds;
      let i = 0;
      const spec = {
        path: '/api/v1/orders/x',
        headers: mmKey,
        next: () => ({ path: `/api/v1/orders/${ids[i++ % ids.length]}` }),
        ...load,
      };
      await drive(server, { ...spec, ...warm });
      record(row('3', 'GET /api/v1/orders/{id} (API key)', await drive(server, spec), await nextBaseline()));
    }

    const quoteRequestBody = { offerer: OFFERER, recipient: OFFERER, inputAmount: '250000000', ...route };
    // Fan-out runs before the write scenarios: the quote requests and quotes they create expire minutes later,
    // and the sweeper's expiry events (up to 500 a second) would be fanned out to every client during 7.
    if (wants('7')) {
      const streams = await fetch(`${server.baseUrl}/openapi.json`).then(
        (res) => res.json() as Promise<{ paths: Record<string, unknown> }>,
      );
      if (!streams.paths['/api/public/stream']) {
        say('   7 skipped: GET /api/public/stream does not exist');
      } else {
        let lastEventData: unknown = null;
        const write = async () => {
          const res = await fetch(`${server.baseUrl}/api/v1/quote-requests`, {
            signal: AbortSignal.timeout(10_000),
            method: 'POST',
            headers: { 'content-type': 'application/json', ...mmKey },
            body: JSON.stringify(quoteRequestBody),
          });
          const body = (await res.json().catch(() => null)) as { data?: { quoteRequest?: unknown } } | null;
          lastEventData = body?.data?.quoteRequest ?? lastEventData;
          return res.status;
        };
        const shape = {
          sseClients: QUICK ? 200 : 1000,
          wsClients: QUICK ? 50 : 200,
          apiKey: accounts.moneyMover.apiKey,
          events: QUICK ? 40 : 100,
          ratePerSec: 50,
        };
        const f = await driveFanout(server, { ...shape, write });
        // The same clients, rate and event body against a bare node:http fan-out, in the same run.
        const bare = await startBareFanout();
        let b: FanoutResult;
        try {
          b = await driveFanout(bare, {
            ...shape,
            write: async () => {
              const res = await fetch(`${bare.baseUrl}/publish`, {
                signal: AbortSignal.timeout(10_000),
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ type: 'quoteRequest.created', data: lastEventData }),
              });
              await res.arrayBuffer();
              return res.status;
            },
          });
        } finally {
          await bare.stop();
        }
        const complete = (r: FanoutResult) =>
          r.connectedSse === r.sseClients &&
          r.connectedWs === r.wsClients &&
          r.receipts === r.expectedReceipts;
        const p99Ratio = f.all.p99Ms / Math.max(1, b.all.p99Ms);
        record({
          id: '7',
          name: `fan-out: ${f.sseClients} SSE + ${f.wsClients} WS, write → receipt`,
          unit: 'events/s',
          rate: 50,
          p50Ms: f.all.p50Ms,
          p99Ms: f.all.p99Ms,
          cpuPercent: f.cpuPercent,
          peakRssMb: mb(f.peakRssBytes),
          ratio: null,
          vs: { ratio: p99Ratio, of: 'bare p99' },
          target: 'p99 ≤ 1.5 × bare fan-out p99',
          pass: complete(f) && complete(b) && p99Ratio <= 1.5,
          notes: `Ferry: SSE p50/p99 ${f.sse.p50Ms}/${f.sse.p99Ms} ms, WS ${f.ws.p50Ms}/${f.ws.p99Ms} ms; connected ${f.connectedSse} SSE, ${f.connectedWs} WS; ${f.receipts}/${f.expectedReceipts} receipts of ${f.events} events; RSS with clients connected ${mb(f.rssWithClientsBytes).toFixed(0)} MB. Bare node:http fan-out, same clients and events: p50/p99 ${b.all.p50Ms}/${b.all.p99Ms} ms (SSE ${b.sse.p99Ms}, WS ${b.ws.p99Ms} ms p99), ${b.receipts}/${b.expectedReceipts} receipts, CPU ${b.cpuPercent.toFixed(0)} %; p99 ratio ${p99Ratio.toFixed(2)} (a bare p99 under 1 ms counts as 1 ms).`,
          raw: { ferry: f, bare: b },
        });
      }
    }

    if (wants('10')) {
      const lpKeys = await seeder.extraLiquidityProviders(100);
      const rate = 200;
      const r = await driveLpStream(server, {
        lpKeys,
        moneyMoverKey: accounts.moneyMover.apiKey,
        body: quoteRequestBody,
        ratePerSec: rate,
        seconds: DURATION,
      });
      record({
        id: '10',
        name: `quote request → ${r.sockets} LP WebSockets (quoteRequests)`,
        unit: 'req/s',
        rate: r.achievedRatePerSec,
        p50Ms: r.fromOccurredAt.p50Ms,
        p99Ms: r.fromOccurredAt.p99Ms,
        cpuPercent: r.cpuPercent,
        peakRssMb: mb(r.peakRssBytes),
        ratio: null,
        target: backend.startsWith('embedded') ? 'p99 < 10 ms' : null,
        pass: backend.startsWith('embedded')
          ? r.connected === r.sockets && r.receipts === r.expectedReceipts && r.fromOccurredAt.p99Ms < 10
          : null,
        notes: `${r.created}/${r.requests} quote requests created at ${rate}/s (open loop, ${r.achievedRatePerSec.toFixed(0)}/s achieved); ${r.connected}/${r.sockets} sockets subscribed; ${r.receipts}/${r.expectedReceipts} receipts; latency from the event's occurredAt (stamped before the write commits, so an upper bound on commit → receipt), max ${r.fromOccurredAt.maxMs} ms. From the POST's 201 at the driver instead: p50/p99 ${r.fromResponse.p50Ms}/${r.fromResponse.p99Ms} ms (${r.fromResponse.earlierThanResponse} receipts came before their 201).`,
        raw: r,
      });
    }

    if (wants('4')) {
      const spec = {
        method: 'POST' as const,
        path: '/api/v1/quote-requests',
        headers: mmKey,
        body: quoteRequestBody,
        ...load,
      };
      await drive(server, { ...spec, ...warm });
      const r = await drive(server, spec);
      record(
        row(
          '4',
          'POST /api/v1/quote-requests',
          r,
          await nextBaseline(),
          { ratio: 0.2 },
          `one offerer, every amount covered: its balance is read from the devnet RPC about once per BALANCE_CACHE_MS (1 s), the other checks use that reading (anvil CPU ${r.proc.helperCpuPercent.toFixed(0)} %).`,
        ),
      );
    }

    if (wants('5')) {
      const lps = accounts.liquidityProviders;
      const capacity = Math.ceil(((DURATION + WARMUP) * 4000) / LP_COUNT);
      const open = await seeder.seedOpenRequests(capacity);
      let i = 0;
      const spec = {
        method: 'POST' as const,
        path: '/api/v1/quotes',
        next: () => {
          const n = i++;
          const lp = lps[Math.floor(n / open.length) % lps.length];
          return {
            headers: { 'x-api-key': lp?.apiKey ?? '' },
            body: { quoteRequestId: open[n % open.length], outputAmount: '249500000' },
          };
        },
        ...load,
      };
      await drive(server, { ...spec, ...warm });
      record(
        row(
          '5',
          'POST /api/v1/quotes',
          await drive(server, spec),
          await nextBaseline(),
          options.databaseUrl ? {} : { rate: 3000 },
          `${open.length} open requests × ${LP_COUNT} LPs.`,
        ),
      );
    }

    if (wants('6')) {
      const concurrency = 16;
      const flow = await driveFlow(server, {
        moneyMoverKey: accounts.moneyMover.apiKey,
        lpKeys: accounts.liquidityProviders.map((lp) => lp.apiKey),
        route,
        concurrency,
        durationSeconds: DURATION,
      });
      const s6a: ScenarioRow = {
        id: '6a',
        name: 'whole flow: request → quote → accept → sign → swap',
        unit: 'flows/s',
        rate: flow.flowsPerSec,
        p50Ms: flow.p50Ms,
        p99Ms: flow.p99Ms,
        cpuPercent: flow.cpuPercent,
        peakRssMb: mb(flow.peakRssBytes),
        ratio: null,
        target: null,
        pass: null,
        notes: `${concurrency} concurrent flows, 4 requests each (${(flow.flowsPerSec * 4).toFixed(0)} req/s); the offerer's signature is made in the driver.${
          flow.failures ? ` ${flow.failures} failed flows, e.g. ${flow.failureSample}` : ''
        }`,
        raw: flow,
      };
      record(s6a);

      const count = QUICK ? 4_000 : Math.max(5_000, DURATION * 3_000);
      say(`   preparing ${count} accepted, signed quotes for 6b`);
      const swaps = await seeder.prepareSwaps(count, 3600);
      let i = 0;
      const r = await drive(server, {
        method: 'POST',
        path: '/api/v1/swaps',
        headers: mmKey,
        next: () => ({ body: swaps[i++ % swaps.length] }),
        connections: CONNECTIONS,
        amount: swaps.length,
      });
      record(
        row(
          '6b',
          'POST /api/v1/swaps (signature verified)',
          r,
          await nextBaseline(),
          { rate: 1000 },
          `${swaps.length} distinct accepted quotes, each executed once (201 expected).`,
        ),
      );
    }

    const mean = baselines.reduce((sum, b) => sum + b.rate, 0) / Math.max(1, baselines.length);
    const first = baselines[0];
    const baselineRow: ScenarioRow[] = first
      ? [
          {
            ...first,
            rate: mean,
            notes: `mean of ${baselines.length} measurements, one next to each API scenario: ${baselines.map((b) => b.rate.toFixed(0)).join(', ')} req/s.`,
            raw: baselines.map((b) => b.raw),
          },
        ]
      : [];
    return {
      backend,
      seed: {
        orders: seed.orders,
        quoteRequests: seed.quoteRequests,
        quotes: seed.quotes,
        seedSeconds: seed.seconds,
      },
      scenarios: [...baselineRow, ...scenarios],
    };
  } finally {
    await seeder?.close();
    await server.stop();
    if (nodeFlags.length) say(`   CPU profile written to ${PROFILE_DIR}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Scenarios measured on each backend's seeded server. */
const BACKEND_SCENARIOS = ['2', '3', '4', '5', '6', '7', '10'];

/** Scenario 8 (and 8b, with one advisory lock per transaction): what PostgreSQL itself sustains, same run. */
async function measureRawBaselines(pgUrl: string) {
  say('\n== PostgreSQL: raw write baseline (8)');
  const plain = await measureRawPgWrites(pgUrl, { seconds: DURATION });
  const rows = [rawPgRow('8', plain)];
  logRow(rows[0] as ScenarioRow);
  if (wants('8')) {
    const locked = await measureRawPgWrites(pgUrl, { seconds: DURATION, advisoryLock: true });
    const row8b = {
      ...rawPgRow('8b', locked),
      vs: { ratio: locked.transactionsPerSec / plain.transactionsPerSec, of: 'raw PG' },
    };
    rows.push(row8b);
    logRow(row8b);
  }
  return { plain, rows };
}

async function runMultiInstanceRows(
  pgUrl: string,
  redisUrl: string,
  raw: RawWriteResult,
): Promise<ScenarioRow[]> {
  say('\n== PostgreSQL + Redis: two API instances and one worker (9)');
  const r = await runMultiInstance({
    pgServerUrl: pgUrl,
    redisUrl,
    // Under a serialising lock a write can take seconds: 2 s (quick) could end before any completes.
    durationSeconds: Math.max(DURATION, 5),
    warmupSeconds: WARMUP,
    connections: CONNECTIONS,
    say,
  });
  const [one, two] = multiInstanceRows(r, raw) as [ScenarioRow, ScenarioRow];
  logRow(one);
  logRow(two);
  return [one, two];
}

/** Scenario 11 on its own embedded Ferry with the settlement worker on: instant blocks, then 1 s blocks. */
async function runSettlement(): Promise<BackendRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-bench-settle-'));
  const databaseUrl = `sqlite:${path.join(dataDir, 'ferry.sqlite')}`;
  say('\n== settlement latency (11): embedded Ferry with its worker, the reference LP bot streaming');
  const server = await startFerry({ dataDir, databaseUrl, nodeFlags, env: { WORKER: 'true' } });
  const scenarios: ScenarioRow[] = [];
  try {
    const parties = await prepareSettlement(server, { dataDir, databaseUrl });
    try {
      const instant = QUICK ? 5 : 50;
      scenarios.push(settlementRow('11a', await parties.run('instant', instant, 1000, 60_000, null), 2000));
      logRow(scenarios.at(-1) as ScenarioRow);
      await parties.intervalMining(1);
      const slow = QUICK ? 3 : 20;
      scenarios.push(settlementRow('11b', await parties.run('1 s blocks', slow, 3000, 120_000, 1), null));
      logRow(scenarios.at(-1) as ScenarioRow);
    } finally {
      await parties.close();
    }
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return {
    backend: 'settlement (embedded, worker on, instant devnets then 1 s blocks)',
    seed: {},
    scenarios,
  };
}

async function main() {
  say(`Ferry bench: ${DURATION} s per scenario${QUICK ? ' (quick)' : ''}, ${CONNECTIONS} connections`);
  const baselineServer = await startBaseline();
  const runs: BackendRun[] = [];
  try {
    logRow(await measureBaseline(baselineServer, true));
    const embedded = BACKEND_SCENARIOS.some(wants)
      ? await runBackend('embedded (SQLite, in-process limits and fan-out)', baselineServer, {})
      : null;
    if (embedded) runs.push(embedded);
    if (wants('11')) runs.push(await runSettlement());
    const pgUrl = process.env.BENCH_DATABASE_URL;
    const redisUrl = process.env.BENCH_REDIS_URL;
    if (pgUrl && (wants('8') || wants('9') || BACKEND_SCENARIOS.some(wants))) {
      const raw = await measureRawBaselines(pgUrl);
      const backend = `PostgreSQL${redisUrl ? ' + Redis' : ''}`;
      let pgRun: BackendRun = { backend, seed: {}, scenarios: [] };
      if (BACKEND_SCENARIOS.some(wants)) {
        const pgDb = await createPgDatabase(pgUrl);
        try {
          pgRun = await runBackend(backend, baselineServer, {
            databaseUrl: pgDb.url,
            redisUrl,
            rawPg: raw.plain,
          });
        } finally {
          await pgDb.drop();
        }
      }
      runs.push(pgRun);
      const pgRows = pgRun.scenarios;
      // Right after the Fastify baseline row: the other reference of this backend.
      pgRows.splice(pgRows[0]?.id === '1' ? 1 : 0, 0, ...raw.rows);
      compareWithEmbedded(pgRows, embedded);
      if (wants('9')) {
        if (redisUrl) pgRows.push(...(await runMultiInstanceRows(pgUrl, redisUrl, raw.plain)));
        else say('   9 skipped: the multi-instance run needs BENCH_REDIS_URL');
      }
    }
  } finally {
    await baselineServer.stop();
  }

  const report: BenchReport = {
    generatedAt: new Date().toISOString(),
    machine: machineInfo(),
    settings: {
      durationSeconds: DURATION,
      warmupSeconds: WARMUP,
      connections: CONNECTIONS,
      quick: QUICK,
      ...(ONLY ? { only: [...ONLY].join('+') } : {}),
    },
    runs,
  };
  const files = writeReport(RESULTS, report);
  say(`\nwrote ${files.json} and ${files.md}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    say(String(error?.stack ?? error));
    process.exit(1);
  },
);
