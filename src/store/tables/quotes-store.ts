import { type RawBuilder, sql } from 'kysely';
import { unixSeconds } from '../../domain/clock.ts';
import { canTransitionQuote, type QuoteStatus } from '../../domain/lifecycle.ts';
import type { OrderTypedData } from '../../domain/order-typed-data.ts';
import type { PageRequest } from '../../domain/pagination.ts';
import type { Quote, QuoteRequest } from '../../domain/records.ts';
import { compiledQuery } from '../engine/compiled-query.ts';
import type { Executor } from '../engine/db-types.ts';
import { activeQuote, expiredQuote, lapsedQuote } from '../engine/lifecycle-sql.ts';
import { pageOf } from '../engine/page-query.ts';
import type { QuotesTable } from '../engine/schema.ts';
import { statusGuard } from '../engine/status-guard.ts';
import { StoreError } from '../engine/store-errors.ts';
import { toQuoteRequest } from './quote-requests-store.ts';

export function toQuote(row: QuotesTable): Quote {
  return {
    id: row.id,
    quoteRequestId: row.quote_request_id,
    liquidityProviderId: row.liquidity_provider_id,
    orderId: row.order_id,
    outputAmount: BigInt(row.output_amount),
    startTime: Number(row.start_time),
    endTime: Number(row.end_time),
    signingHash: row.signing_hash as `0x${string}`,
    typedData: JSON.parse(row.typed_data) as OrderTypedData,
    status: row.status as QuoteStatus,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function quoteRow(q: Quote): QuotesTable {
  return {
    id: q.id,
    quote_request_id: q.quoteRequestId,
    liquidity_provider_id: q.liquidityProviderId,
    order_id: q.orderId,
    output_amount: q.outputAmount.toString(),
    start_time: q.startTime,
    end_time: q.endTime,
    signing_hash: q.signingHash,
    typed_data: JSON.stringify(q.typedData),
    status: q.status,
    created_at: q.createdAt.getTime(),
    updated_at: q.updatedAt.getTime(),
  };
}

/** The quotes in one statement. */
export async function insertQuotes(db: Executor, quotes: readonly Quote[]): Promise<void> {
  if (quotes.length === 0) return;
  await db.insertInto('quotes').values(quotes.map(quoteRow)).execute();
}

/**
 * The insert of `quotes` (at least one) only where `condition` holds, judged once for all of them (a condition
 * that fails raises: lp-commitments-store.ts coverCheck), compiled but not sent: for `database.write`, which sends
 * it together with their events.
 */
export function coveredQuotesInsert(quotes: readonly Quote[], condition: RawBuilder<boolean>) {
  const rows = quotes.map(quoteRow);
  const columns = Object.keys(rows[0] as QuotesTable);
  const tuple = (row: QuotesTable) =>
    sql`(${sql.join(Object.values(row).map((v) => (typeof v === 'number' ? sql`cast(${v} as bigint)` : sql`${v}`)))})`;
  return (db: Executor) =>
    sql`insert into quotes (${sql.join(columns.map((c) => sql.ref(c)))})
      select * from (values ${sql.join(rows.map(tuple))}) as v where ${condition}`.compile(db);
}

// On the LP quote path: the request and the LP's fill address in one round trip.
const selectQuotingBasis = compiledQuery((db, p: { requestId: string; lpAccountId: string }) =>
  db
    .selectFrom('quote_requests')
    .selectAll('quote_requests')
    .select((eb) =>
      eb
        .selectFrom('accounts')
        .select('accounts.address')
        .where('accounts.id', '=', p.lpAccountId)
        .as('lp_address'),
    )
    .where('quote_requests.id', '=', p.requestId),
);

/** What a new quote is judged on: the request (null when there is none), and the LP's fill address (if any). */
export async function findQuotingBasis(
  db: Executor,
  requestId: string,
  lpAccountId: string,
): Promise<{ request: QuoteRequest; lpAddress: string | null } | null> {
  const row = (await selectQuotingBasis(db, { requestId, lpAccountId })).rows[0];
  if (!row) return null;
  const { lp_address, ...request } = row;
  return { request: toQuoteRequest(request), lpAddress: lp_address ?? null };
}

const selectQuote = compiledQuery((db, p: { id: string }) =>
  db.selectFrom('quotes').selectAll().where('id', '=', p.id),
);

export async function findQuote(db: Executor, id: string): Promise<Quote | null> {
  const row = (await selectQuote(db, { id })).rows[0];
  return row ? toQuote(row) : null;
}

const selectQuoteWithRequest = compiledQuery((db, p: { id: string }) =>
  db
    .selectFrom('quotes')
    .innerJoin('quote_requests as r', 'r.id', 'quotes.quote_request_id')
    .selectAll('quotes')
    .select(['r.account_id as r_account_id', 'r.offerer as r_offerer', 'r.recipient as r_recipient'])
    .select([
      'r.input_token as r_input_token',
      'r.output_token as r_output_token',
      'r.input_amount as r_input_amount',
    ])
    .select(['r.input_chain as r_input_chain', 'r.output_chain as r_output_chain', 'r.status as r_status'])
    .select(['r.accepted_quote_id as r_accepted_quote_id', 'r.created_at as r_created_at'])
    .select(['r.updated_at as r_updated_at', 'r.expires_at as r_expires_at'])
    .where('quotes.id', '=', p.id),
);

/** A quote with its request, in one query (null when there is no such quote). */
export async function findQuoteWithRequest(
  db: Executor,
  id: string,
): Promise<{ quote: Quote; request: QuoteRequest } | null> {
  const row = (await selectQuoteWithRequest(db, { id })).rows[0];
  if (!row) return null;
  const request = toQuoteRequest({
    id: row.quote_request_id,
    account_id: row.r_account_id,
    offerer: row.r_offerer,
    recipient: row.r_recipient,
    input_token: row.r_input_token,
    output_token: row.r_output_token,
    input_amount: row.r_input_amount,
    input_chain: row.r_input_chain,
    output_chain: row.r_output_chain,
    status: row.r_status,
    accepted_quote_id: row.r_accepted_quote_id,
    created_at: row.r_created_at,
    updated_at: row.r_updated_at,
    expires_at: row.r_expires_at,
  });
  return { quote: toQuote(row), request };
}

/** The quotes with these ids, by id, in one query. */
export async function findQuotes(db: Executor, ids: readonly string[]): Promise<Map<string, Quote>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('quotes').selectAll().where('id', 'in', unique).execute();
  return new Map(rows.map((row) => [row.id, toQuote(row)]));
}

export interface QuoteFilter {
  /** Money mover: quotes on its own requests. */
  readonly requestOwnerId: string | null;
  /** Liquidity provider: its own quotes. */
  readonly liquidityProviderId: string | null;
  readonly quoteRequestId: string | null;
  readonly status: QuoteStatus | null;
  readonly now: Date;
}

/** Lists newest first; `active` and `expired` are judged on the clock as well as the stored status. */
export async function listQuotes(db: Executor, filter: QuoteFilter, page: PageRequest) {
  let query = db.selectFrom('quotes');
  if (filter.requestOwnerId !== null) {
    const owner = filter.requestOwnerId;
    query = query.where('quote_request_id', 'in', (eb) =>
      eb.selectFrom('quote_requests').select('id').where('account_id', '=', owner),
    );
  }
  if (filter.liquidityProviderId !== null)
    query = query.where('liquidity_provider_id', '=', filter.liquidityProviderId);
  if (filter.quoteRequestId !== null) query = query.where('quote_request_id', '=', filter.quoteRequestId);
  const nowSeconds = unixSeconds(filter.now);
  if (filter.status === 'active') query = query.where((eb) => activeQuote(eb, nowSeconds));
  else if (filter.status === 'expired') query = query.where((eb) => expiredQuote(eb, nowSeconds));
  else if (filter.status !== null) query = query.where('status', '=', filter.status);
  return pageOf(query, page, toQuote);
}

/**
 * Declines every quote of the request still active at `now` (quotes past their end are expired, never declined),
 * in one statement; returns them as they are now, oldest first.
 */
export async function declineActiveQuotes(db: Executor, quoteRequestId: string, now: Date): Promise<Quote[]> {
  const rows = await db
    .updateTable('quotes')
    .set({ status: 'declined', updated_at: now.getTime() })
    .where('quote_request_id', '=', quoteRequestId)
    .where((eb) => activeQuote(eb, unixSeconds(now)))
    .returningAll()
    .execute();
  return rows
    .map(toQuote)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
}

export async function setQuoteStatus(
  db: Executor,
  id: string,
  from: QuoteStatus,
  to: QuoteStatus,
  now: Date,
) {
  if (!canTransitionQuote(from, to)) throw new StoreError(`quote ${id}: no transition ${from} → ${to}`);
  const result = await db
    .updateTable('quotes')
    .set({ status: to, updated_at: now.getTime() })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function recentQuotes(db: Executor, limit: number): Promise<Quote[]> {
  const rows = await db.selectFrom('quotes').selectAll().orderBy('created_at', 'desc').limit(limit).execute();
  return rows.map(toQuote);
}

/** Marks up to `limit` due active quotes expired and returns them for their events, in one statement. */
export async function expireDueQuotes(db: Executor, now: Date, limit: number): Promise<Quote[]> {
  const rows = await dueQuotesExpiry(db, now, limit).execute();
  return rows.map(toQuote).sort((a, b) => a.endTime - b.endTime || a.id.localeCompare(b.id));
}

/** The sweep's update of expireDueQuotes, not run: its query plan is tested (status-guard.test.ts). */
export function dueQuotesExpiry(db: Executor, now: Date, limit: number) {
  return db
    .updateTable('quotes')
    .set({ status: 'expired', updated_at: now.getTime() })
    .where(statusGuard(db), '=', 'active')
    .where('id', 'in', (due) =>
      due
        .selectFrom('quotes')
        .select('id')
        .where((eb) => lapsedQuote(eb, unixSeconds(now)))
        .orderBy('end_time')
        .limit(limit),
    )
    .returningAll();
}

/**
 * An LP's quote past its endTime may still read `active` until the sweep runs; it must not block the LP's
 * new quote on the same request (the one-active-quote index counts stored status).
 */
export async function expireStaleQuoteOfProvider(
  db: Executor,
  quoteRequestId: string,
  lpId: string,
  now: Date,
): Promise<Quote[]> {
  const { rows } = await expireStale(db, {
    quoteRequestId,
    lpId,
    nowSeconds: unixSeconds(now),
    nowMs: now.getTime(),
  });
  return rows.map(toQuote);
}

// On the LP quote path: one compiled statement, not a read and an update per stale quote.
const expireStale = compiledQuery(
  (db, p: { quoteRequestId: string; lpId: string; nowSeconds: number; nowMs: number }) =>
    db
      .updateTable('quotes')
      .set({ status: 'expired', updated_at: p.nowMs })
      .where('quote_request_id', '=', p.quoteRequestId)
      .where('liquidity_provider_id', '=', p.lpId)
      .where((eb) => lapsedQuote(eb, p.nowSeconds))
      .returningAll(),
);
