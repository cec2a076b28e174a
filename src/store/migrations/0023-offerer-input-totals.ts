import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../engine/database.ts';

/**
 * What an offerer's open quote requests ask for, as running totals (quote-requests-store.ts openRequestedInput), so
 * a new request is judged against its balance by reading a few rows however many requests are open.
 * `offerer_input_totals` has one row per (offerer, input chain, input token, end_second): the input of the requests
 * stored `open` whose expiresAt falls in that second (end_second = expires_at in ms rounded up to a whole second). A
 * reader counts rows with end_second × 1000 > now: every request still open, and those that lapsed earlier in the
 * current second (an over-count of under a second, on the side of refusing). Rows never lapse by a write: the
 * expiry sweep's own update takes each request out when it writes it down, and deletes rows back at zero.
 *
 * Triggers on quote_requests keep the totals in the statement that changes a row, for every writer. SQLite adds
 * straight into the row (one writer at a time). PostgreSQL appends to `offerer_input_changes` and the commit-time
 * fold of migration 0019 (now folding both tables, in one order) moves them into the totals: a sweep writing many
 * requests down would otherwise lock totals rows in its own order while a request's insert holds another.
 */
export function offererInputTotalsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const amountType = dialect === 'postgres' ? 'numeric' : 'text';
      await db.schema
        .createTable('offerer_input_totals')
        .addColumn('offerer', 'text', (c) => c.notNull())
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('end_second', 'bigint', (c) => c.notNull())
        .addColumn('amount', sql.raw(amountType), (c) => c.notNull())
        .addPrimaryKeyConstraint('offerer_input_totals_pk', ['offerer', 'chain', 'token', 'end_second'])
        .execute();
      // The sweep's delete of spent rows (quote-requests-store.ts deleteSpentOffererTotals), without a scan of all.
      await db.schema
        .createIndex('offerer_input_totals_end')
        .on('offerer_input_totals')
        .column('end_second')
        .execute();
      if (dialect === 'postgres') await postgresTriggers(db);
      else await sqliteTriggers(db);
      const sum =
        dialect === 'postgres'
          ? sql.raw('sum(input_amount::numeric)')
          : sql.raw('ferry_u256_sum(input_amount)');
      await sql`insert into offerer_input_totals (offerer, chain, token, end_second, amount)
        select offerer, input_chain, input_token, (expires_at + 999) / 1000, ${sum} from quote_requests
        where status = 'open' group by offerer, input_chain, input_token, (expires_at + 999) / 1000`.execute(
        db,
      );
    },
  };
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`create table offerer_input_changes (
    txid bigint not null default txid_current(),
    offerer text not null, chain text not null, token text not null, end_second bigint not null,
    amount numeric not null)`.execute(db);
  await sql`create index offerer_input_changes_txid on offerer_input_changes (txid)`.execute(db);
  await sql
    .raw(`create function ferry_quote_requests_input() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'INSERT' and old.status = 'open' then
        insert into offerer_input_changes (offerer, chain, token, end_second, amount)
        values (old.offerer, old.input_chain, old.input_token, (old.expires_at + 999) / 1000, -old.input_amount::numeric);
        perform ferry_mark_fold();
      end if;
      if tg_op <> 'DELETE' and new.status = 'open' then
        insert into offerer_input_changes (offerer, chain, token, end_second, amount)
        values (new.offerer, new.input_chain, new.input_token, (new.expires_at + 999) / 1000, new.input_amount::numeric);
        perform ferry_mark_fold();
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`create trigger quote_requests_input
    after insert or delete or update of status, input_amount, expires_at, offerer, input_chain, input_token
    on quote_requests for each row execute function ferry_quote_requests_input()`)
    .execute(db);
  // Both tables' changes at commit, LP promises first, each in key order: every transaction locks totals rows in
  // the same order, so two commits cannot wait on each other.
  await sql
    .raw(`create or replace function ferry_fold_promise_changes() returns trigger language plpgsql as $$
    begin
      delete from lp_promise_folds where txid = txid_current();
      with moved as (delete from lp_promise_changes where txid = txid_current() returning *)
      insert into lp_promises (lp_account_id, chain, token, kind, end_time, amount)
      select lp_account_id, chain, token, kind, end_time, sum(amount) from moved
      group by lp_account_id, chain, token, kind, end_time
      order by lp_account_id, chain, token, kind, end_time
      on conflict (lp_account_id, chain, token, kind, end_time)
      do update set amount = lp_promises.amount + excluded.amount;
      with moved as (delete from offerer_input_changes where txid = txid_current() returning *)
      insert into offerer_input_totals (offerer, chain, token, end_second, amount)
      select offerer, chain, token, end_second, sum(amount) from moved
      group by offerer, chain, token, end_second
      order by offerer, chain, token, end_second
      on conflict (offerer, chain, token, end_second)
      do update set amount = offerer_input_totals.amount + excluded.amount;
      return null;
    end $$`)
    .execute(db);
  // Same signature and lock as migration 0020; the sum now reads the totals.
  await sql`create or replace function ferry_offerer_open_input(
  lock_key text, p_offerer text, p_chain text, p_token text, now_ms bigint) returns numeric
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock(hashtextextended(lock_key, 0));
  return (select coalesce(sum(amount), 0) from offerer_input_totals
    where offerer = p_offerer and chain = p_chain and token = p_token and end_second > now_ms / 1000);
end $$`.execute(db);
}

/** One writer at a time: the triggers add straight into the totals rows. */
async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const add = (row: 'old' | 'new', sign: '' | '-') => `insert into offerer_input_totals
    (offerer, chain, token, end_second, amount)
    select ${row}.offerer, ${row}.input_chain, ${row}.input_token, (${row}.expires_at + 999) / 1000,
      '${sign}' || ${row}.input_amount
    where ${row}.status = 'open'
    on conflict (offerer, chain, token, end_second) do update set amount = ferry_u256_add(amount, excluded.amount);`;
  const columns = 'status, input_amount, expires_at, offerer, input_chain, input_token';
  for (const ddl of [
    `create trigger quote_requests_input_insert after insert on quote_requests begin ${add('new', '')} end`,
    `create trigger quote_requests_input_update after update of ${columns} on quote_requests begin
      ${add('old', '-')} ${add('new', '')} end`,
    `create trigger quote_requests_input_delete after delete on quote_requests begin ${add('old', '-')} end`,
  ]) {
    await sql.raw(ddl).execute(db);
  }
}
