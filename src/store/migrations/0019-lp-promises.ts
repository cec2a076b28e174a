import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../engine/database.ts';

/**
 * An LP's open promises as running totals (lp-commitments-store.ts), so a new quote's coverage check reads a few
 * rows however many quotes the LP holds. `lp_promises` has one row per (LP, output chain, output token, kind,
 * end_time): kind `quote` (active quotes, counted while end_time > now), `accepted` (accepted quotes without an
 * order, counted while end_time > now - OPEN_WINDOW) and `order` (unfilled orders, end_time 0, never lapses by
 * time). A promise that lapses by time needs no write: the read skips rows past their time, and the expiry sweep
 * deletes them later. The triggers only keep sums by kind and end second; which kind counts until when is the rule
 * in domain/lp-coverage.ts (promiseHoldsUntil, promiseBounds), which the reads take their bounds from and the LP
 * bot reserves by: the SQL cannot import it, so a change to the rule changes the bounds there, not these triggers.
 *
 * Triggers on quotes and orders keep the totals, in the statement that changes a row: every writer (API, worker,
 * bench seed, a future path) is covered in its own unit of work, with no extra round trip. One rule, written as a
 * row's contribution: a quote `active` → (quote, end_time), `accepted` with no order row → (accepted, end_time);
 * an order `created`/`deposited` → (order, 0). A change subtracts the old row's contribution and adds the new one.
 *
 * Amounts are uint256 decimal strings: PostgreSQL adds them as `numeric` (exact); SQLite keeps text and adds with
 * `ferry_u256_add`, a JavaScript function database.ts registers on every connection.
 *
 * PostgreSQL: the triggers only append to `lp_promise_changes` (no row lock, nothing to wait for); a deferred
 * trigger folds the transaction's changes into `lp_promises` at commit, in one statement sorted by key. Totals rows
 * are shared by every quote of an LP ending in the same second, so updating them as rows change would lock them in
 * each transaction's own order (an accept declining several LPs' quotes) and could deadlock; at commit, in key
 * order, it cannot.
 */
export function lpPromisesMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const amountType = dialect === 'postgres' ? 'numeric' : 'text';
      await db.schema
        .createTable('lp_promises')
        .addColumn('lp_account_id', 'text', (c) => c.notNull())
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('end_time', 'bigint', (c) => c.notNull())
        .addColumn('amount', sql.raw(amountType), (c) => c.notNull())
        .addPrimaryKeyConstraint('lp_promises_pk', ['lp_account_id', 'chain', 'token', 'kind', 'end_time'])
        .execute();
      // The sweep's delete of lapsed rows (lp-commitments-store.ts deleteLapsedPromises), without a scan of all.
      await db.schema
        .createIndex('lp_promises_lapse')
        .on('lp_promises')
        .columns(['kind', 'end_time'])
        .execute();
      if (dialect === 'postgres') await postgresTriggers(db);
      else await sqliteTriggers(db);
      await backfillLpPromises(db, dialect);
    },
  };
}

/** Every quote and order's contribution today, summed per totals row (the triggers keep them from now on). */
export async function backfillLpPromises(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const sum =
    dialect === 'postgres'
      ? sql.raw('sum(output_amount::numeric)')
      : sql.raw('ferry_u256_sum(output_amount)');
  await sql`insert into lp_promises (lp_account_id, chain, token, kind, end_time, amount)
    select lp, chain, token, kind, end_time, ${sum} from (
      select q.liquidity_provider_id as lp, r.output_chain as chain, r.output_token as token,
        case when q.status = 'active' then 'quote' else 'accepted' end as kind, q.end_time, q.output_amount
      from quotes q join quote_requests r on r.id = q.quote_request_id
      where q.status = 'active' or (q.status = 'accepted' and not exists (select 1 from orders o where o.id = q.order_id))
      union all
      select liquidity_provider_account_id, output_chain, output_token, 'order', 0, output_amount
      from orders where status in ('created', 'deposited')
    ) c group by lp, chain, token, kind, end_time`.execute(db);
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`create table lp_promise_changes (
    txid bigint not null default txid_current(),
    lp_account_id text not null, chain text not null, token text not null, kind text not null,
    end_time bigint not null, amount numeric not null)`.execute(db);
  await sql`create index lp_promise_changes_txid on lp_promise_changes (txid)`.execute(db);
  // One row per transaction with changes, whose deferred trigger folds them at commit: a trigger per change row
  // would scan the transaction's folded rows again for each (quadratic in a bulk insert). A transaction-local
  // setting remembers that the row is there (a rolled-back savepoint takes both back).
  await sql`create table lp_promise_folds (txid bigint primary key)`.execute(db);
  await sql
    .raw(`create function ferry_mark_fold() returns void language plpgsql as $$
    begin
      if current_setting('ferry.promise_fold', true) is distinct from txid_current()::text then
        perform set_config('ferry.promise_fold', txid_current()::text, true);
        insert into lp_promise_folds (txid) values (txid_current());
      end if;
    end $$`)
    .execute(db);
  await sql
    .raw(`create function ferry_add_promise(lp text, chain text, token text, kind text, end_time bigint,
    amount numeric) returns void language plpgsql as $$
    begin
      insert into lp_promise_changes (lp_account_id, chain, token, kind, end_time, amount)
      values (lp, chain, token, kind, end_time, amount);
      perform ferry_mark_fold();
    end $$`)
    .execute(db);
  // The quote's contribution, signed: +1 adds it, -1 takes it away.
  await sql
    .raw(`create function ferry_quote_promise(q quotes, sign int) returns void language plpgsql as $$
    declare r record;
    begin
      if q.status = 'active' or (q.status = 'accepted' and not exists (select 1 from orders where id = q.order_id)) then
        select output_chain, output_token into r from quote_requests where id = q.quote_request_id;
        perform ferry_add_promise(q.liquidity_provider_id, r.output_chain, r.output_token,
          case when q.status = 'active' then 'quote' else 'accepted' end, q.end_time, sign * q.output_amount::numeric);
      end if;
    end $$`)
    .execute(db);
  await sql
    .raw(`create function ferry_quotes_promises() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'INSERT' then perform ferry_quote_promise(old, -1); end if;
      if tg_op <> 'DELETE' then perform ferry_quote_promise(new, 1); end if;
      return null;
    end $$`)
    .execute(db);
  // An order row ends its accepted quote's hold (the order holds instead; deleted, it gives the hold back), and
  // holds while unfilled.
  await sql
    .raw(`create function ferry_orders_promises() returns trigger language plpgsql as $$
    declare q record;
    begin
      if tg_op <> 'UPDATE' then
        select qu.liquidity_provider_id, r.output_chain, r.output_token, qu.end_time, qu.output_amount into q
        from quotes qu join quote_requests r on r.id = qu.quote_request_id
        where qu.order_id = coalesce(new.id, old.id) and qu.status = 'accepted';
        if found then
          perform ferry_add_promise(q.liquidity_provider_id, q.output_chain, q.output_token, 'accepted', q.end_time,
            case when tg_op = 'INSERT' then -1 else 1 end * q.output_amount::numeric);
        end if;
      end if;
      if tg_op <> 'INSERT' and old.status in ('created', 'deposited') then
        perform ferry_add_promise(old.liquidity_provider_account_id, old.output_chain, old.output_token, 'order', 0,
          -old.output_amount::numeric);
      end if;
      if tg_op <> 'DELETE' and new.status in ('created', 'deposited') then
        perform ferry_add_promise(new.liquidity_provider_account_id, new.output_chain, new.output_token, 'order', 0,
          new.output_amount::numeric);
      end if;
      return null;
    end $$`)
    .execute(db);
  // At commit, once per transaction.
  await sql
    .raw(`create function ferry_fold_promise_changes() returns trigger language plpgsql as $$
    begin
      delete from lp_promise_folds where txid = txid_current();
      with moved as (delete from lp_promise_changes where txid = txid_current() returning *)
      insert into lp_promises (lp_account_id, chain, token, kind, end_time, amount)
      select lp_account_id, chain, token, kind, end_time, sum(amount) from moved
      group by lp_account_id, chain, token, kind, end_time
      order by lp_account_id, chain, token, kind, end_time
      on conflict (lp_account_id, chain, token, kind, end_time)
      do update set amount = lp_promises.amount + excluded.amount;
      return null;
    end $$`)
    .execute(db);
  // What the LP has promised on (chain, token) at now_s (lp-commitments-store.ts lpCommitted).
  await sql
    .raw(`create function ferry_lp_promised(lp text, p_chain text, p_token text, now_s bigint,
    since_s bigint) returns numeric language sql volatile as $$
      select coalesce(sum(amount), 0) from (
        select amount from lp_promises where lp_account_id = lp and chain = p_chain and token = p_token
          and kind = 'quote' and end_time > now_s
        union all
        select amount from lp_promises where lp_account_id = lp and chain = p_chain and token = p_token
          and kind = 'accepted' and end_time > since_s
        union all
        select amount from lp_promises where lp_account_id = lp and chain = p_chain and token = p_token
          and kind = 'order' and end_time = 0) live $$`)
    .execute(db);
  // The (LP, chain, token) lock until the transaction ends, then the sum, which sees what the lock's previous
  // holder committed: a volatile function's statements each take a fresh snapshot (lp-commitments-store.ts).
  await sql
    .raw(`create function ferry_lock_promised(lp text, p_chain text, p_token text, now_s bigint,
    since_s bigint) returns numeric language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock(hashtextextended('lp-promises:' || lp || ':' || p_chain || ':' || p_token, 0));
      return ferry_lp_promised(lp, p_chain, p_token, now_s, since_s);
    end $$`)
    .execute(db);
  // A new quote's coverage, inside the statement that inserts it (lp-commitments-store.ts coverCheck): raises
  // FR001 with the promised sum when the fill address's balance does not cover it and the new amount.
  await sql
    .raw(`create function ferry_cover_quote(lp text, p_chain text, p_token text, now_s bigint,
    since_s bigint, amount numeric, held numeric) returns boolean language plpgsql volatile as $$
    declare promised numeric;
    begin
      promised := ferry_lock_promised(lp, p_chain, p_token, now_s, since_s);
      if promised + amount > held then
        raise exception using errcode = 'FR001', message = promised::text;
      end if;
      return true;
    end $$`)
    .execute(db);
  // New quotes (the quote path's writes, often a batch) per statement: one aggregated append, not a call per row.
  await sql
    .raw(`create function ferry_quotes_inserted() returns trigger language plpgsql as $$
    begin
      insert into lp_promise_changes (lp_account_id, chain, token, kind, end_time, amount)
      select q.liquidity_provider_id, r.output_chain, r.output_token,
        case when q.status = 'active' then 'quote' else 'accepted' end, q.end_time, sum(q.output_amount::numeric)
      from inserted q join quote_requests r on r.id = q.quote_request_id
      where q.status = 'active' or (q.status = 'accepted' and not exists (select 1 from orders o where o.id = q.order_id))
      group by 1, 2, 3, 4, 5;
      if found then perform ferry_mark_fold(); end if;
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`create trigger quotes_promises_insert after insert on quotes referencing new table as inserted
    for each statement execute function ferry_quotes_inserted()`)
    .execute(db);
  await sql
    .raw(`create trigger quotes_promises
    after delete or update of status, output_amount, end_time, order_id, liquidity_provider_id, quote_request_id
    on quotes for each row execute function ferry_quotes_promises()`)
    .execute(db);
  await sql
    .raw(`create trigger orders_promises
    after insert or delete or update of status, output_amount, output_chain, output_token, liquidity_provider_account_id
    on orders for each row execute function ferry_orders_promises()`)
    .execute(db);
  await sql
    .raw(`create constraint trigger lp_promise_folds_fold after insert on lp_promise_folds
    deferrable initially deferred for each row execute function ferry_fold_promise_changes()`)
    .execute(db);
}

/** One writer at a time: the triggers add straight into the totals rows. */
async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const upsert = `on conflict (lp_account_id, chain, token, kind, end_time)
    do update set amount = ferry_u256_add(amount, excluded.amount)`;
  const quote = (row: 'old' | 'new', sign: '' | '-') => `insert into lp_promises
    (lp_account_id, chain, token, kind, end_time, amount)
    select ${row}.liquidity_provider_id, r.output_chain, r.output_token,
      case when ${row}.status = 'active' then 'quote' else 'accepted' end, ${row}.end_time, '${sign}' || ${row}.output_amount
    from quote_requests r where r.id = ${row}.quote_request_id and (${row}.status = 'active' or
      (${row}.status = 'accepted' and not exists (select 1 from orders o where o.id = ${row}.order_id))) ${upsert};`;
  const order = (row: 'old' | 'new', sign: '' | '-') => `insert into lp_promises
    (lp_account_id, chain, token, kind, end_time, amount)
    select ${row}.liquidity_provider_account_id, ${row}.output_chain, ${row}.output_token, 'order', 0,
      '${sign}' || ${row}.output_amount
    where ${row}.status in ('created', 'deposited') ${upsert};`;
  // The accepted quote an order row replaces (insert) or gives back (delete), taken before the order row exists
  // (insert) or after it is gone (delete): `exists orders` in quote() must not see it.
  const acceptedOf = (row: 'old' | 'new', sign: '' | '-') => `insert into lp_promises
    (lp_account_id, chain, token, kind, end_time, amount)
    select q.liquidity_provider_id, r.output_chain, r.output_token, 'accepted', q.end_time, '${sign}' || q.output_amount
    from quotes q join quote_requests r on r.id = q.quote_request_id
    where q.order_id = ${row}.id and q.status = 'accepted' ${upsert};`;
  const quoteColumns = 'status, output_amount, end_time, order_id, liquidity_provider_id, quote_request_id';
  const orderColumns = 'status, output_amount, output_chain, output_token, liquidity_provider_account_id';
  for (const ddl of [
    `create trigger quotes_promises_insert after insert on quotes begin ${quote('new', '')} end`,
    `create trigger quotes_promises_update after update of ${quoteColumns} on quotes begin
      ${quote('old', '-')} ${quote('new', '')} end`,
    `create trigger quotes_promises_delete after delete on quotes begin ${quote('old', '-')} end`,
    `create trigger orders_promises_insert before insert on orders begin ${acceptedOf('new', '-')} end`,
    `create trigger orders_promises_insert_order after insert on orders begin ${order('new', '')} end`,
    `create trigger orders_promises_update after update of ${orderColumns} on orders begin
      ${order('old', '-')} ${order('new', '')} end`,
    `create trigger orders_promises_delete after delete on orders begin ${acceptedOf('old', '')} ${order('old', '-')} end`,
  ]) {
    await sql.raw(ddl).execute(db);
  }
}
