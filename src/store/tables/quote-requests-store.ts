import { CompiledQuery } from 'kysely';
import type { Address } from '../../domain/address.ts';
import type { NewEvent } from '../../domain/events.ts';
import type { QuoteRequestStatus } from '../../domain/lifecycle.ts';
import type { PageRequest } from '../../domain/pagination.ts';
import type { QuoteRequest } from '../../domain/records.ts';
import { compiledQuery } from '../engine/compiled-query.ts';
import type { FerryDatabase } from '../engine/database.ts';
import type { Executor } from '../engine/db-types.ts';
import { expiredQuoteRequest, lapsedQuoteRequest, openQuoteRequest } from '../engine/lifecycle-sql.ts';
import { pageOf } from '../engine/page-query.ts';
import type { QuoteRequestsTable } from '../engine/schema.ts';
import { statusGuard } from '../engine/status-guard.ts';
import { type OffererFunds, offererLockKey } from './offerer-lock.ts';

export function toQuoteRequest(row: QuoteRequestsTable): QuoteRequest {
  return {
    id: row.id,
    accountId: row.account_id,
    offerer: row.offerer as Address,
    recipient: row.recipient as Address,
    inputToken: row.input_token as Address,
    outputToken: row.output_token as Address,
    inputAmount: BigInt(row.input_amount),
    inputChain: row.input_chain,
    outputChain: row.output_chain,
    status: row.status as QuoteRequestStatus,
    acceptedQuoteId: row.accepted_quote_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    expiresAt: new Date(row.expires_at),
  };
}

const insertRow = compiledQuery((db, row: QuoteRequestsTable) =>
  db.insertInto('quote_requests').values({
    id: row.id,
    account_id: row.account_id,
    offerer: row.offerer,
    recipient: row.recipient,
    input_token: row.input_token,
    output_token: row.output_token,
    input_amount: row.input_amount,
    input_chain: row.input_chain,
    output_chain: row.output_chain,
    status: row.status,
    accepted_quote_id: row.accepted_quote_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    expires_at: row.expires_at,
  }),
);

/** The insert of `qr`, bound but not sent: for `database.write`, which sends it together with its event. */
export function quoteRequestInsert(qr: QuoteRequest) {
  return (db: Executor) =>
    insertRow.bound(db, {
      id: qr.id,
      account_id: qr.accountId,
      offerer: qr.offerer,
      recipient: qr.recipient,
      input_token: qr.inputToken,
      output_token: qr.outputToken,
      input_amount: qr.inputAmount.toString(),
      input_chain: qr.inputChain,
      output_chain: qr.outputChain,
      status: qr.status,
      accepted_quote_id: qr.acceptedQuoteId,
      created_at: qr.createdAt.getTime(),
      updated_at: qr.updatedAt.getTime(),
      expires_at: qr.expiresAt.getTime(),
    });
}

const selectQuoteRequest = compiledQuery((db, p: { id: string }) =>
  db.selectFrom('quote_requests').selectAll().where('id', '=', p.id),
);

export async function findQuoteRequest(db: Executor, id: string): Promise<QuoteRequest | null> {
  const row = (await selectQuoteRequest(db, { id })).rows[0];
  return row ? toQuoteRequest(row) : null;
}

/** The requests with these ids, by id, in one query (listings must not read them one by one). */
export async function findQuoteRequests(
  db: Executor,
  ids: readonly string[],
): Promise<Map<string, QuoteRequest>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('quote_requests').selectAll().where('id', 'in', unique).execute();
  return new Map(rows.map((row) => [row.id, toQuoteRequest(row)]));
}

export interface QuoteRequestFilter {
  /** Only this owner's requests (money movers); null lists every owner's (liquidity providers). */
  readonly accountId: string | null;
  readonly createdAfter: Date;
  readonly status: QuoteRequestStatus | null;
  readonly now: Date;
}

/** Lists newest first. `open` and `expired` are filtered on the clock, not only the stored status. */
export async function listQuoteRequests(db: Executor, filter: QuoteRequestFilter, page: PageRequest) {
  let query = db.selectFrom('quote_requests').where('created_at', '>=', filter.createdAfter.getTime());
  if (filter.accountId !== null) query = query.where('account_id', '=', filter.accountId);
  const now = filter.now.getTime();
  if (filter.status === 'open') query = query.where((eb) => openQuoteRequest(eb, now));
  else if (filter.status === 'expired') query = query.where((eb) => expiredQuoteRequest(eb, now));
  else if (filter.status !== null) query = query.where('status', '=', filter.status);
  return pageOf(query, page, toQuoteRequest);
}

/** Moves an open request to accepted; false when it was no longer open (another accept won). */
export async function markQuoteRequestAccepted(db: Executor, id: string, quoteId: string, now: Date) {
  const result = await db
    .updateTable('quote_requests')
    .set({ status: 'accepted', accepted_quote_id: quoteId, updated_at: now.getTime() })
    .where('id', '=', id)
    .where((eb) => openQuoteRequest(eb, now.getTime()))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Marks up to `limit` due open requests expired and returns them, so the caller can log one event each: one
 * statement, however many are due (a row-by-row sweep held SQLite's write lock for as long as it took).
 */
export async function expireDueQuoteRequests(
  db: Executor,
  now: Date,
  limit: number,
): Promise<QuoteRequest[]> {
  const rows = await dueQuoteRequestsExpiry(db, now, limit).execute();
  return rows
    .map(toQuoteRequest)
    .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || a.id.localeCompare(b.id));
}

/** The sweep's update of expireDueQuoteRequests, not run: its query plan is tested (status-guard.test.ts). */
export function dueQuoteRequestsExpiry(db: Executor, now: Date, limit: number) {
  return db
    .updateTable('quote_requests')
    .set({ status: 'expired', updated_at: now.getTime() })
    .where(statusGuard(db), '=', 'open')
    .where('id', 'in', (due) =>
      due
        .selectFrom('quote_requests')
        .select('id')
        .where((eb) => lapsedQuoteRequest(eb, now.getTime()))
        .orderBy('expires_at')
        .limit(limit),
    )
    .returningAll();
}

/**
 * The input the offerer's open requests ask for in one token on one chain: what its balance must cover besides a
 * new request. Read from the running totals (migration 0023): a few rows per second of request validity, however
 * many requests are open; a request counts until the end of the second it expires in.
 */
export async function openRequestedInput(db: Executor, funds: OffererFunds, now: Date): Promise<bigint> {
  const { rows } = await selectOpenInput(db, { ...funds, afterSecond: Math.floor(now.getTime() / 1000) });
  return rows.reduce((sum, row) => sum + BigInt(row.amount), 0n);
}

const selectOpenInput = compiledQuery(
  (db, p: { offerer: string; chain: string; token: string; afterSecond: number }) =>
    db
      .selectFrom('offerer_input_totals')
      .select('amount')
      .where('offerer', '=', p.offerer)
      .where('chain', '=', p.chain)
      .where('token', '=', p.token)
      .where('end_second', '>', p.afterSecond),
);

/**
 * The same from the request rows, as the totals define it (stored `open`, expiring after the start of the current
 * second): the reference the reconciliation test holds the totals to. Its cost grows with the open requests; never
 * on a request path.
 */
export async function openRequestedInputFromRows(
  db: Executor,
  funds: OffererFunds,
  now: Date,
): Promise<bigint> {
  const rows = await db
    .selectFrom('quote_requests')
    .select('input_amount')
    .where('offerer', '=', funds.offerer)
    .where('input_chain', '=', funds.chain)
    .where('input_token', '=', funds.token)
    .where('status', '=', 'open')
    .where('expires_at', '>', Math.floor(now.getTime() / 1000) * 1000)
    .execute();
  return rows.reduce((sum, row) => sum + BigInt(row.input_amount), 0n);
}

/** Deletes totals rows back at zero whose second has passed: every request in them has left `open`. */
export async function deleteSpentOffererTotals(db: Executor, now: Date): Promise<void> {
  await db
    .deleteFrom('offerer_input_totals')
    .where('end_second', '<=', Math.floor(now.getTime() / 1000))
    .where('amount', '=', '0')
    .execute();
}

const REQUEST_COLUMNS = `id, account_id, offerer, recipient, input_token, output_token, input_amount, input_chain,
  output_chain, status, accepted_quote_id, created_at, updated_at, expires_at`;
const REQUEST_TYPES = [...Array(11).fill('text'), 'bigint', 'bigint', 'bigint'] as const;

/**
 * The insert of `rows` requests of one offerer in one token, only if its open requests (summed under its lock by
 * ferry_offerer_open_input, migrations 0020 and 0023, evaluated once in the CTE) leave the balance room for all of
 * them. Every parameter is cast: a parameter's type is taken from its first use.
 */
function coveredInsertPg(rows: number): string {
  const values = Array.from({ length: rows }, (_, r) => {
    const slots = REQUEST_TYPES.map((type, i) => `$${r * REQUEST_TYPES.length + i + 1}::${type}`);
    return `(${slots.join(', ')})`;
  });
  const p = rows * REQUEST_TYPES.length;
  return `with judged as (select ferry_offerer_open_input($${p + 1}::text, $${p + 2}::text, $${p + 3}::text,
    $${p + 4}::text, $${p + 5}::bigint) + $${p + 6}::numeric <= $${p + 7}::numeric as covered)
insert into quote_requests (${REQUEST_COLUMNS})
select v.* from (values ${values.join(', ')}) v, judged where judged.covered
returning id`;
}

function requestParameters(qr: QuoteRequest): unknown[] {
  return [
    ...[
      qr.id,
      qr.accountId,
      qr.offerer,
      qr.recipient,
      qr.inputToken,
      qr.outputToken,
      qr.inputAmount.toString(),
    ],
    ...[qr.inputChain, qr.outputChain, qr.status, qr.acceptedQuoteId, qr.createdAt.getTime()],
    ...[qr.updatedAt.getTime(), qr.expiresAt.getTime()],
  ];
}

/** New requests of one offerer in one token on one chain, each with its event. */
export interface CoveredRequests {
  readonly requests: readonly { readonly qr: QuoteRequest; readonly event: NewEvent }[];
  /** The offerer's balance reading that must cover them all on top of its open requests. */
  readonly balance: bigint;
}

/**
 * Inserts the requests with their events when `balance` covers all of them on top of what the offerer's open
 * requests in that token already ask for; otherwise writes nothing and answers what those ask for (null:
 * inserted). PostgreSQL judges and inserts in one statement, under the offerer's lock; SQLite in one unit of work
 * (one writer at a time).
 */
export async function insertCoveredQuoteRequests(
  database: FerryDatabase,
  { requests, balance }: CoveredRequests,
): Promise<bigint | null> {
  const first = (requests[0] as CoveredRequests['requests'][number]).qr;
  const funds = { chain: first.inputChain, token: first.inputToken, offerer: first.offerer };
  const total = requests.reduce((sum, { qr }) => sum + qr.inputAmount, 0n);
  if (database.dialect === 'postgres') {
    const judge = [offererLockKey(funds), funds.offerer, funds.chain, funds.token, first.createdAt.getTime()];
    const parameters = [
      ...requests.flatMap(({ qr }) => requestParameters(qr)),
      ...[...judge, total.toString(), balance.toString()],
    ];
    const inserted = await database.writeIfInserted(
      () => CompiledQuery.raw(coveredInsertPg(requests.length), parameters),
      requests.map((r) => r.event),
    );
    // Refused (rare): what the open requests ask for now, outside the lock, for the message and a fresher reading.
    return inserted ? null : openRequestedInput(database.db, funds, first.createdAt);
  }
  return database.transaction(async (trx, uow) => {
    const open = await openRequestedInput(trx, funds, first.createdAt);
    if (balance < open + total) return open;
    for (const { qr, event } of requests) {
      await trx.executeQuery(quoteRequestInsert(qr)(trx));
      uow.emit(event);
    }
    return null;
  });
}
