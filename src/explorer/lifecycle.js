// @ts-check
// GENERATED FILE: do not edit. Compiled from src/domain/lifecycle.ts by
// scripts/generate-explorer-modules.ts (`npm run generate:explorer`); test/explorer-search-shape.test.ts
// fails when it is stale.
/**
 * Status sets, the forward-only transitions of docs/lifecycles.md, and the clock's part in them. Pure and
 * import-free: scripts/generate-explorer-modules.ts compiles it for the explorer too.
 */
export const QUOTE_REQUEST_STATUSES = ['open', 'accepted', 'expired', 'cancelled'];
export const QUOTE_STATUSES = ['active', 'accepted', 'declined', 'expired', 'withdrawn'];
export const ORDER_STATUSES = ['created', 'deposited', 'filled', 'completed', 'failed', 'refunded'];
const QUOTE_TRANSITIONS = {
    // An accepted quote keeps its status after its endTime: executeRefusal judges it on the clock.
    active: ['accepted', 'declined', 'expired', 'withdrawn'],
    accepted: [],
    declined: [],
    expired: [],
    withdrawn: [],
};
export function canTransitionQuote(from, to) {
    return QUOTE_TRANSITIONS[from].includes(to);
}
export const TERMINAL_ORDER_STATUSES = ['completed', 'failed', 'refunded'];
const ORDER_TRANSITIONS = {
    created: ['deposited', 'failed'],
    // deposited → completed when the escrow was settled on chain before Ferry saw the fill at depth.
    deposited: ['filled', 'completed', 'refunded'],
    // filled → refunded only when the escrow was refunded on chain (e.g. by the offerer) before the settle landed.
    filled: ['completed', 'refunded'],
    completed: [],
    failed: [],
    refunded: [],
};
export function canTransitionOrder(from, to) {
    return ORDER_TRANSITIONS[from].includes(to);
}
export function isTerminalOrderStatus(status) {
    return TERMINAL_ORDER_STATUSES.includes(status);
}
/** Orders the settlement worker still has work on: every status but the terminal ones. */
export const WORKING_ORDER_STATUSES = ORDER_STATUSES.filter((s) => !isTerminalOrderStatus(s));
/**
 * How far along its lifecycle a status is (created 0 … terminal last): a status never ranks below one it can follow,
 * so a late or replayed event can be told from news.
 */
export function orderStatusRank(status) {
    return isTerminalOrderStatus(status)
        ? WORKING_ORDER_STATUSES.length
        : WORKING_ORDER_STATUSES.indexOf(status);
}
/** Whether an order in `from` can still come to `to` (in any number of transitions). */
function canReach(from, to) {
    return ORDER_TRANSITIONS[from].some((next) => next === to || canReach(next, to));
}
/** Orders whose output is still to be delivered: those a fill can still move to `filled`. */
export const UNFILLED_ORDER_STATUSES = ORDER_STATUSES.filter((s) => canReach(s, 'filled'));
/** The timestamps and notes entering `to` sets, whoever moves the order there. */
export function orderTransitionStamps(to, now) {
    return {
        completedAt: to === 'completed' ? now : null,
        // A settle that kept reverting wrote why on the order; once completed, that is history, not a reason.
        clearFailureReason: to === 'completed',
    };
}
/** A quote request is open until its `expiresAt` (exclusive), whatever the expiry sweep has written yet. */
export function quoteRequestExpired(expiresAt, now) {
    return expiresAt.getTime() <= now.getTime();
}
/** A quote holds until its `endTime` (unix seconds, exclusive): for accepting it, and for executing it. */
export function quoteEnded(endTimeSeconds, now) {
    return endTimeSeconds * 1000 <= now.getTime();
}
/** A row's stored status can lag behind the clock until the expiry sweep runs; readers see the truth. */
export function effectiveQuoteRequestStatus(status, expiresAt, now) {
    return status === 'open' && quoteRequestExpired(expiresAt, now) ? 'expired' : status;
}
export function effectiveQuoteStatus(status, endTimeSeconds, now) {
    return status === 'active' && quoteEnded(endTimeSeconds, now) ? 'expired' : status;
}
export function isQuoteRequestOpen(request, now) {
    return effectiveQuoteRequestStatus(request.status, request.expiresAt, now) === 'open';
}
/** An `active` quote within its endTime, on a request still open, may be accepted; null when it may. */
export function acceptRefusal(quote, request, now) {
    const status = effectiveQuoteStatus(quote.status, quote.endTime, now);
    if (status === 'expired')
        return { code: 'QUOTE_EXPIRED' };
    if (status !== 'active')
        return { code: 'QUOTE_NOT_ACTIVE', status };
    if (!isQuoteRequestOpen(request, now))
        return { code: 'QUOTE_REQUEST_CLOSED' };
    return null;
}
/**
 * An accepted quote becomes an order only until its endTime: it keeps its `accepted` status after that, but can no
 * longer be executed. Null when it may be executed now.
 */
export function executeRefusal(quote, now) {
    const status = effectiveQuoteStatus(quote.status, quote.endTime, now);
    if (status === 'expired' || (status === 'accepted' && quoteEnded(quote.endTime, now))) {
        return { code: 'QUOTE_EXPIRED' };
    }
    if (status !== 'accepted')
        return { code: 'QUOTE_NOT_ACTIVE', status };
    return null;
}
/** When a new quote request stops taking quotes. */
export function quoteRequestExpiresAt(createdAt, ttlSeconds) {
    return new Date(createdAt.getTime() + ttlSeconds * 1000);
}
