import { sql } from 'kysely';
import { UNFILLED_ORDER_STATUSES } from '../../domain/lifecycle.ts';
import type { PromiseBounds } from '../../domain/lp-coverage.ts';
import type { Dialect } from '../engine/database.ts';
import type { Executor } from '../engine/db-types.ts';
import { activeQuote } from '../engine/lifecycle-sql.ts';

/** Orders whose output the liquidity provider has yet to deliver. */
const UNFILLED = UNFILLED_ORDER_STATUSES;

/** Lapsed totals rows stay this long before the sweep deletes them: more than any clock skew among instances. */
const LAPSED_KEEP_SECONDS = 600;

/**
 * Whose promises, on what, and the bounds that say which still count: those come from domain/lp-coverage.ts
 * (promiseBounds), the rule's one home, which the LP bot's reservations follow too. The totals rows only carry
 * sums by kind and end second; what counts until when is decided there, not in this SQL.
 */
export interface CommitmentKey extends PromiseBounds {
  readonly lpAccountId: string;
  readonly chain: string;
  readonly token: string;
}

/** SQLite: the live totals rows' sum, as one expression (PostgreSQL: ferry_lp_promised in the migration). */
function sqlitePromised(key: CommitmentKey) {
  return sql<string>`(select ferry_u256_sum(amount) from lp_promises
    where lp_account_id = ${key.lpAccountId} and chain = ${key.chain} and token = ${key.token} and (
      (kind = 'quote' and end_time > ${key.nowSeconds}) or (kind = 'accepted' and end_time > ${key.acceptedSinceSeconds})
      or kind = 'order'))`;
}

/**
 * What a liquidity provider has already promised on one chain in one token: the output of its quotes still active
 * (not past their end), of its accepted quotes whose swap may still come (no order yet, deposit window still open)
 * and of its orders not yet filled. Read from the running totals (migrations/0019-lp-promises.ts): a few rows per
 * second of quote validity, however many quotes the LP holds.
 */
export async function lpCommitted(db: Executor, dialect: Dialect, key: CommitmentKey): Promise<bigint> {
  const promised =
    dialect === 'postgres'
      ? sql<string>`ferry_lp_promised(${key.lpAccountId}, ${key.chain}, ${key.token}, ${key.nowSeconds},
        ${key.acceptedSinceSeconds})::text`
      : sqlitePromised(key);
  const { rows } = await sql<{ total: string }>`select ${promised} as total`.execute(db);
  return BigInt(rows[0]?.total ?? '0');
}

/**
 * lpCommitted after taking the (LP, chain, token) lock until the caller's transaction ends (PostgreSQL; SQLite runs
 * one writer at a time): for a batch of the LP's quotes judged together (services/quote-writer.ts), one round trip.
 */
export async function lockedLpCommitted(
  trx: Executor,
  dialect: Dialect,
  key: CommitmentKey,
): Promise<bigint> {
  if (dialect !== 'postgres') return lpCommitted(trx, dialect, key);
  const { rows } = await sql<{ total: string }>`select ferry_lock_promised(${key.lpAccountId}, ${key.chain},
    ${key.token}, ${key.nowSeconds}, ${key.acceptedSinceSeconds})::text as total`.execute(trx);
  return BigInt(rows[0]?.total ?? '0');
}

/** A new promise of `amount` against the `held` balance of the LP's fill address. */
export interface Coverage extends CommitmentKey {
  readonly amount: bigint;
  readonly held: bigint;
}

/**
 * The condition a quote's insert carries (quotes-store.ts coveredQuoteInsert): true when `held` covers what the
 * LP already promised on that chain and token plus `amount`; otherwise the statement fails with
 * UncoveredQuoteError (store-errors.ts), carrying the promised sum. On PostgreSQL it first takes a lock on
 * (LP, chain, token) held until the transaction ends, so two quotes created at once cannot both count on the same
 * balance, while the LP's quotes on other chains and tokens go on in parallel; the check, the insert, its event
 * and the commit are then one statement, so the lock is held for no round trip. SQLite runs one writer at a time.
 */
export function coverCheck(dialect: Dialect, c: Coverage) {
  if (dialect === 'postgres') {
    return sql<boolean>`ferry_cover_quote(${c.lpAccountId}, ${c.chain}, ${c.token}, ${c.nowSeconds},
      ${c.acceptedSinceSeconds}, ${c.amount.toString()}::numeric, ${c.held.toString()}::numeric)`;
  }
  return sql<boolean>`ferry_cover(${sqlitePromised(c)}, ${c.amount.toString()}, ${c.held.toString()})`;
}

/**
 * Deletes totals rows whose promises lapsed a while ago (LAPSED_KEEP_SECONDS), and unfilled-order rows at zero:
 * the live rows stay a few per second of quote validity. PostgreSQL skips rows a commit is folding into.
 */
export async function deleteLapsedPromises(
  db: Executor,
  dialect: Dialect,
  at: { nowSeconds: number; acceptedSinceSeconds: number },
): Promise<void> {
  const quoteBefore = at.nowSeconds - LAPSED_KEEP_SECONDS;
  const acceptedBefore = at.acceptedSinceSeconds - LAPSED_KEEP_SECONDS;
  if (dialect === 'postgres') {
    await sql`delete from lp_promises where ctid in (select ctid from lp_promises
      where (kind = 'quote' and end_time <= ${quoteBefore}) or (kind = 'accepted' and end_time <= ${acceptedBefore})
        or (kind = 'order' and amount = 0)
      for update skip locked)`.execute(db);
    return;
  }
  await db
    .deleteFrom('lp_promises')
    .where((eb) =>
      eb.or([
        eb.and([eb('kind', '=', 'quote'), eb('end_time', '<=', quoteBefore)]),
        eb.and([eb('kind', '=', 'accepted'), eb('end_time', '<=', acceptedBefore)]),
        eb.and([eb('kind', '=', 'order'), eb('amount', '=', '0')]),
      ]),
    )
    .execute();
}

/**
 * The same promises recomputed from the quote and order rows, the way the coverage check read them before the
 * totals: the reference the reconciliation test (test/lp-promises.test.ts) holds the totals to. Its cost grows
 * with the LP's open promises; never on a request path.
 */
export async function lpCommittedFromRows(db: Executor, key: CommitmentKey): Promise<bigint> {
  const rows = await db
    .selectFrom('quotes')
    .innerJoin('quote_requests', 'quote_requests.id', 'quotes.quote_request_id')
    .leftJoin('orders', 'orders.id', 'quotes.order_id')
    .select((eb) => eb.ref('quotes.output_amount').$castTo<string | null>().as('output_amount'))
    .where('quotes.liquidity_provider_id', '=', key.lpAccountId)
    .where((eb) =>
      eb.or([
        activeQuote(eb, key.nowSeconds),
        eb.and([
          eb('quotes.status', '=', 'accepted'),
          eb('quotes.end_time', '>', key.acceptedSinceSeconds),
          eb('orders.id', 'is', null),
        ]),
      ]),
    )
    .where('quote_requests.output_chain', '=', key.chain)
    .where('quote_requests.output_token', '=', key.token)
    .unionAll((eb) =>
      eb
        .selectFrom('orders')
        .select('orders.output_amount as output_amount')
        .where('orders.liquidity_provider_account_id', '=', key.lpAccountId)
        .where('orders.status', 'in', UNFILLED)
        .where('orders.output_chain', '=', key.chain)
        .where('orders.output_token', '=', key.token),
    )
    .execute();
  return rows.reduce((sum, row) => sum + BigInt(row.output_amount ?? 0), 0n);
}
