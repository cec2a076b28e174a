import type { ExpressionBuilder } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The clock's part in the lifecycles (src/domain/lifecycle.ts) as SQL, written once for every query that judges it:
 * a stored `active` quote or `open` request past its time reads as expired before the sweep writes it down.
 * `nowSeconds` compares with end_time (whole unix seconds: end_time * 1000 > now ⇔ end_time > floor(now / 1000));
 * `nowMs` with expires_at (milliseconds). Both may be compiledQuery slots.
 */

type QuotesEb = ExpressionBuilder<Database, 'quotes'>;
type QuoteRequestsEb = ExpressionBuilder<Database, 'quote_requests'>;

/** Stored `active` and within its endTime (lifecycle.ts quoteEnded). */
export function activeQuote(eb: QuotesEb, nowSeconds: number) {
  return eb.and([eb('quotes.status', '=', 'active'), eb('quotes.end_time', '>', nowSeconds)]);
}

/** Stored `active` but past its endTime: expired, not yet written down. */
export function lapsedQuote(eb: QuotesEb, nowSeconds: number) {
  return eb.and([eb('quotes.status', '=', 'active'), eb('quotes.end_time', '<=', nowSeconds)]);
}

/** Expired, written down or not. */
export function expiredQuote(eb: QuotesEb, nowSeconds: number) {
  return eb.or([eb('quotes.status', '=', 'expired'), lapsedQuote(eb, nowSeconds)]);
}

/**
 * Stored `open` and before its expiresAt (lifecycle.ts quoteRequestExpired). The offerer's input totals (migration
 * 0023) count a request the same way, to the end of the second it expires in: a change here needs a migration
 * changing their triggers.
 */
export function openQuoteRequest(eb: QuoteRequestsEb, nowMs: number) {
  return eb.and([eb('quote_requests.status', '=', 'open'), eb('quote_requests.expires_at', '>', nowMs)]);
}

/** Stored `open` but past its expiresAt: expired, not yet written down. */
export function lapsedQuoteRequest(eb: QuoteRequestsEb, nowMs: number) {
  return eb.and([eb('quote_requests.status', '=', 'open'), eb('quote_requests.expires_at', '<=', nowMs)]);
}

/** Expired, written down or not. */
export function expiredQuoteRequest(eb: QuoteRequestsEb, nowMs: number) {
  return eb.or([eb('quote_requests.status', '=', 'expired'), lapsedQuoteRequest(eb, nowMs)]);
}
