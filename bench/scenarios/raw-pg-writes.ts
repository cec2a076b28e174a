/**
 * Scenario 8b: PostgreSQL's raw write rate with one advisory lock per transaction, next to row 8 (the same writes
 * without it, which the PostgreSQL run always measures as its reference).
 */
import { DURATION } from '../harness/bench-settings.ts';
import { logRow } from '../harness/load-row.ts';
import { measureRawPgWrites } from '../harness/pg-writes.ts';
import { rawPgRow } from '../harness/postgres-rows.ts';
import type { ScenarioRow } from '../harness/report.ts';
import type { PostgresContext } from '../harness/scenario.ts';

export async function rawPgWritesLocked({ serverUrl, raw }: PostgresContext): Promise<ScenarioRow[]> {
  const locked = await measureRawPgWrites(serverUrl, { seconds: DURATION, advisoryLock: true });
  const row: ScenarioRow = {
    ...rawPgRow('8b', locked),
    vs: { ratio: locked.transactionsPerSec / raw.transactionsPerSec, of: 'raw PG' },
  };
  logRow(row);
  return [row];
}
