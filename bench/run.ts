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
 * Which scenarios there are and what each needs: scenarios/scenario-table.ts. This file selects (BENCH_ONLY),
 * provides the needs and runs; scenario 1, the bare Fastify baseline, always runs: it is the reference.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runBackend } from './harness/backend-run.ts';
import { CONNECTIONS, DURATION, ONLY, QUICK, RESULTS, say, WARMUP } from './harness/bench-settings.ts';
import { logRow, measureBaseline } from './harness/load-row.ts';
import { runOnPostgres } from './harness/postgres-run.ts';
import { type BackendRun, type BenchReport, machineInfo, writeReport } from './harness/report.ts';
import { isChosen, isOwn, isPostgres, isSeeded } from './harness/scenario.ts';
import { startBaseline } from './harness/server.ts';
import { SCENARIOS } from './scenarios/scenario-table.ts';

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
    const chosen = SCENARIOS.filter(isChosen);
    const seeded = chosen.filter(isSeeded);
    const embedded = seeded.length
      ? await runBackend('embedded (SQLite, in-process limits and fan-out)', baselineServer, seeded, {})
      : null;
    if (embedded) runs.push(embedded);
    for (const scenario of chosen.filter(isOwn)) runs.push(await scenario.run());
    const pgUrl = process.env.BENCH_DATABASE_URL;
    const onPostgres = chosen.filter(isPostgres);
    if (pgUrl && (onPostgres.length > 0 || seeded.length > 0)) {
      runs.push(
        await runOnPostgres({
          serverUrl: pgUrl,
          redisUrl: process.env.BENCH_REDIS_URL,
          baselineServer,
          seeded,
          scenarios: onPostgres,
          embedded,
        }),
      );
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
