import { type RawBuilder, sql } from 'kysely';
import { type Executor, isPostgres } from './db-types.ts';

/**
 * The `status` check of an update that picks its rows with `id in (subquery)`, the subquery reading an index on
 * status and time. PostgreSQL needs the check on the update itself: under READ COMMITTED a row another transaction
 * changed after the subquery's snapshot is checked again against the update's own conditions, and this is what keeps
 * an expiry from overwriting an acceptance. On SQLite, which has one writer, the row cannot change between the two;
 * there the unary plus keeps the planner from answering the check from the status index. It did: the sweep walked
 * every row of that status and probed the id list for each, a pass that grew with every live quote (100 ms a
 * second at 100,000 live quotes, on the event loop: bench/README.md).
 */
export function statusGuard(db: Executor): RawBuilder<string> {
  return isPostgres(db) ? sql<string>`status` : sql<string>`+status`;
}
