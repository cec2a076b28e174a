/**
 * The `postgres` need: the PostgreSQL run. The raw write rate of the server first (row 8, the reference other rows
 * compare with), then the seeded Ferry on a database of its own, then the scenarios that start Ferry themselves.
 */

import { runBackend } from './backend-run.ts';
import { DURATION, say } from './bench-settings.ts';
import { logRow } from './load-row.ts';
import { createPgDatabase, measureRawPgWrites } from './pg-writes.ts';
import { compareWithEmbedded, rawPgRow } from './postgres-rows.ts';
import type { BackendRun, ScenarioRow } from './report.ts';
import type { PostgresContext, PostgresScenario, SeededScenario } from './scenario.ts';
import type { RunningServer } from './server.ts';

async function runPostgresScenario(s: PostgresScenario, pg: PostgresContext): Promise<ScenarioRow[]> {
  if ((s.needs as readonly string[]).includes('redis') && !pg.redisUrl) {
    say(`   ${s.id} skipped: ${s.title} needs BENCH_REDIS_URL`);
    return [];
  }
  return s.run(pg);
}

export async function runOnPostgres(options: {
  serverUrl: string;
  redisUrl: string | undefined;
  baselineServer: RunningServer;
  seeded: readonly SeededScenario[];
  scenarios: readonly PostgresScenario[];
  embedded: BackendRun | null;
}): Promise<BackendRun> {
  const { serverUrl, redisUrl, baselineServer, seeded, scenarios, embedded } = options;
  say('\n== PostgreSQL: raw write baseline (8)');
  const raw = await measureRawPgWrites(serverUrl, { seconds: DURATION });
  const reference = rawPgRow('8', raw);
  logRow(reference);
  const pg: PostgresContext = { serverUrl, redisUrl, raw };
  const startsFerry = (s: PostgresScenario) => (s.needs as readonly string[]).includes('ferry');
  const rows = [reference];
  // The database alone, beside its reference and before the seeded Ferry has filled the server.
  for (const s of scenarios.filter((x) => !startsFerry(x))) rows.push(...(await runPostgresScenario(s, pg)));
  const backend = `PostgreSQL${redisUrl ? ' + Redis' : ''}`;
  let pgRun: BackendRun = { backend, seed: {}, scenarios: [] };
  if (seeded.length > 0) {
    const pgDb = await createPgDatabase(serverUrl);
    try {
      pgRun = await runBackend(backend, baselineServer, seeded, {
        databaseUrl: pgDb.url,
        pgProbe: pgDb,
        redisUrl,
        rawPg: raw,
      });
    } finally {
      await pgDb.drop();
    }
  }
  const pgRows = pgRun.scenarios;
  // Right after the Fastify baseline row: the other reference of this backend.
  pgRows.splice(pgRows[0]?.id === '1' ? 1 : 0, 0, ...rows);
  compareWithEmbedded(pgRows, embedded);
  for (const s of scenarios.filter(startsFerry)) pgRows.push(...(await runPostgresScenario(s, pg)));
  return pgRun;
}
