import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../engine/database.ts';
import { EVENTS_PER_TRANSACTION } from '../engine/events-store.ts';
import { StoreError } from '../engine/store-errors.ts';

/**
 * PostgreSQL event ids stop coming from an identity column: the store derives each id from the writing
 * transaction's id (`xid`, kept in its own column), so ids sort in the order a tailer may deliver them without any
 * lock among writers (events-store.ts). Existing ids must stay below every new one, which holds unless a past
 * transaction appended more than EVENTS_PER_TRANSACTION events on average; the migration refuses otherwise.
 * SQLite keeps its autoincrement ids (one writer).
 */
export function eventXidMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`alter table events alter column id drop identity if exists`.execute(db);
      await sql`alter table events add column xid xid8`.execute(db);
      const { rows } = await sql<{ ok: boolean }>`select coalesce(max(id), 0) <
        (pg_current_xact_id()::text::bigint + 1) * ${sql.lit(EVENTS_PER_TRANSACTION)} as ok from events`.execute(
        db,
      );
      if (!rows[0]?.ok) {
        throw new StoreError(
          'existing event ids exceed the transaction-derived ids; new events would sort before them',
        );
      }
    },
  };
}
