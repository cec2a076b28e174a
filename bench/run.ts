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
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PROVE_AFTER_SECONDS } from '../src/lp/prove-batch-defaults.ts';
import {
  createQuoteRequests,
  createQuotes,
  lpStream,
  ownOrder,
  publicOrdersPage,
  type ScenarioContext,
  swapFlow,
} from './lib/backend-scenarios.ts';
import { runBatchSettlement } from './lib/batch-settlement.ts';
import {
  CONNECTIONS,
  DURATION,
  LP_COUNT,
  nodeFlags,
  ONLY,
  PROFILE_DIR,
  QUICK,
  RESULTS,
  SEED_EXTRA_REQUESTS,
  SEED_ORDERS,
  say,
  WARMUP,
  wants,
} from './lib/bench-settings.ts';
import { runFadedLp } from './lib/faded-lp.ts';
import { fanOut } from './lib/fanout-scenario.ts';
import { logRow, measureBaseline } from './lib/load-row.ts';
import { lzGasRows, measureLzGas } from './lib/lz-gas.ts';
import { runMultiInstance } from './lib/multi-instance.ts';
import type { PgProbe } from './lib/pg-profile.ts';
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
import { type RunningServer, startBaseline, startFerry } from './lib/server.ts';
import { prepareSettlement } from './lib/settlement.ts';

async function runBackend(
  backend: string,
  baselineServer: RunningServer,
  options: { databaseUrl?: string; pgProbe?: PgProbe; redisUrl?: string; rawPg?: RawWriteResult },
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
    // 1 token a request: an offerer's open requests are judged together against its balance (1,000,000 tokens), and
    // scenario 4 leaves about 100,000 open for QUOTE_REQUEST_TTL_SECONDS.
    const quoteRequestBody = { offerer: OFFERER, recipient: OFFERER, inputAmount: '1000000', ...route };
    const record = (row: ScenarioRow) => {
      const s = options.rawPg ? withRawPgRatio(row, options.rawPg) : row;
      scenarios.push(s);
      logRow(s);
    };

    const ctx: ScenarioContext = {
      backend,
      server,
      seeder,
      seed,
      accounts,
      route,
      quoteRequestBody,
      mmKey,
      load,
      warm,
      postgres: options.databaseUrl !== undefined,
      pgProbe: options.pgProbe ?? null,
      record,
      nextBaseline,
    };
    if (wants('2')) await publicOrdersPage(ctx);
    if (wants('3')) await ownOrder(ctx);
    // Fan-out runs before the write scenarios: the quote requests and quotes they create expire minutes later,
    // and the sweeper's expiry events (up to 500 a second) would be fanned out to every client during 7.
    if (wants('7')) await fanOut(ctx);
    if (wants('10')) await lpStream(ctx);
    if (wants('4')) await createQuoteRequests(ctx);
    if (wants('5')) await createQuotes(ctx);
    if (wants('6')) await swapFlow(ctx);

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
      const window = DEFAULT_PROVE_AFTER_SECONDS * 1000;
      scenarios.push(settlementRow('11a', await parties.run('instant', instant, 1000, 60_000, null), window));
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

/** Scenario 12: gas per order through LayerZero V2, on two anvils of its own. */
async function runLzGas(): Promise<BackendRun> {
  say('\n== gas per order through LayerZero V2 (12): two anvils, LayerZero and Ferry deployed, apps locked');
  const scenarios = lzGasRows(await measureLzGas(say));
  for (const row of scenarios) logRow(row);
  return { backend: 'gas per order (LayerZero V2 on anvil, receipts gasUsed)', seed: {}, scenarios };
}

async function main() {
  say(`Ferry bench: ${DURATION} s per scenario${QUICK ? ' (quick)' : ''}, ${CONNECTIONS} connections`);
  // The servers run the compiled `ferry` (bin/ferry.js): measure the sources as they are, not an older build.
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url)), '--if-stale'],
    { stdio: 'inherit' },
  );
  const baselineServer = await startBaseline();
  const runs: BackendRun[] = [];
  try {
    logRow(await measureBaseline(baselineServer, true));
    const embedded = BACKEND_SCENARIOS.some(wants)
      ? await runBackend('embedded (SQLite, in-process limits and fan-out)', baselineServer, {})
      : null;
    if (embedded) runs.push(embedded);
    if (wants('11')) runs.push(await runSettlement());
    if (wants('12')) runs.push(await runLzGas());
    if (wants('13')) runs.push(await runBatchSettlement(say, nodeFlags));
    // Minutes of real waiting (the exclusivity runs out on the clock): only when asked for by id.
    if (ONLY?.has('14')) runs.push(await runFadedLp(say));
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
            pgProbe: pgDb,
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
