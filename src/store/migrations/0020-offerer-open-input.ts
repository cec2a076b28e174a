import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../engine/database.ts';

/**
 * PostgreSQL: `ferry_offerer_open_input`, what an offerer's open quote requests in one token ask for, read under the
 * offerer's lock, so a new request is judged and inserted in one statement (quote-requests-store.ts,
 * insertCoveredQuoteRequest). A statement's snapshot is taken when it starts, before any lock it takes; a VOLATILE
 * function's queries each take a fresh one, so the sum here, run after the lock is granted, sees every request the
 * previous holder committed. The lock is transaction-scoped (held to the statement's commit) and keyed like
 * lockOffererFunds. "Open" is lifecycle-sql.ts openQuoteRequest: stored `open`, expires_at after now. Amounts are
 * uint256 decimal strings, summed as numeric (exact). SQLite needs none of it: one writer at a time.
 */
export function offererOpenInputMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`create or replace function ferry_offerer_open_input(
  lock_key text, p_offerer text, p_chain text, p_token text, now_ms bigint) returns numeric
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock(hashtextextended(lock_key, 0));
  return (select coalesce(sum(input_amount::numeric), 0) from quote_requests
    where offerer = p_offerer and input_chain = p_chain and input_token = p_token
      and status = 'open' and expires_at > now_ms);
end $$`.execute(db);
    },
  };
}
