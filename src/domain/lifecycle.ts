/**
 * Status sets, the forward-only transitions of docs/lifecycles.md, and the clock's part in them. Pure and
 * import-free: scripts/generate-explorer-modules.ts compiles it for the explorer too.
 */

export const QUOTE_REQUEST_STATUSES = ['open', 'accepted', 'expired', 'cancelled'] as const;
export type QuoteRequestStatus = (typeof QUOTE_REQUEST_STATUSES)[number];

export const QUOTE_STATUSES = ['active', 'accepted', 'declined', 'expired', 'withdrawn'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

export const ORDER_STATUSES = ['created', 'deposited', 'filled', 'completed', 'failed', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const QUOTE_TRANSITIONS: Readonly<Record<QuoteStatus, readonly QuoteStatus[]>> = {
  // An accepted quote keeps its status after its endTime: executeRefusal judges it on the clock.
  active: ['accepted', 'declined', 'expired', 'withdrawn'],
  accepted: [],
  declined: [],
  expired: [],
  withdrawn: [],
};

export function canTransitionQuote(from: QuoteStatus, to: QuoteStatus): boolean {
  return QUOTE_TRANSITIONS[from].includes(to);
}

export const TERMINAL_ORDER_STATUSES: readonly OrderStatus[] = ['completed', 'failed', 'refunded'];

const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  created: ['deposited', 'failed'],
  // deposited → completed when the escrow was settled on chain before Ferry saw the fill at depth.
  deposited: ['filled', 'completed', 'refunded'],
  // filled → refunded only when the escrow was refunded on chain (e.g. by the offerer) before the settle landed.
  filled: ['completed', 'refunded'],
  completed: [],
  failed: [],
  refunded: [],
};

export function canTransitionOrder(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

export function isTerminalOrderStatus(status: OrderStatus): boolean {
  return TERMINAL_ORDER_STATUSES.includes(status);
}

/** Orders the settlement worker still has work on: every status but the terminal ones. */
export const WORKING_ORDER_STATUSES: readonly OrderStatus[] = ORDER_STATUSES.filter(
  (s) => !isTerminalOrderStatus(s),
);

/**
 * How far along its lifecycle a status is (created 0 … terminal last): a status never ranks below one it can follow,
 * so a late or replayed event can be told from news.
 */
export function orderStatusRank(status: OrderStatus): number {
  return isTerminalOrderStatus(status)
    ? WORKING_ORDER_STATUSES.length
    : WORKING_ORDER_STATUSES.indexOf(status);
}

/** Whether an order in `from` can still come to `to` (in any number of transitions). */
function canReach(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].some((next) => next === to || canReach(next, to));
}

/** Orders whose output is still to be delivered: those a fill can still move to `filled`. */
export const UNFILLED_ORDER_STATUSES: readonly OrderStatus[] = ORDER_STATUSES.filter((s) =>
  canReach(s, 'filled'),
);

/** What a transition writes on the order besides its status. */
export interface OrderChange {
  readonly status: OrderStatus;
  readonly srcChainTxHash?: string;
  readonly dstChainTxHash?: string;
  /** The filler of record, written with the fill's transaction. */
  readonly filledBy?: string;
  readonly settlementTxHash?: string;
  readonly failureReason?: string;
}

/** The timestamps and notes entering `to` sets, whoever moves the order there. */
export function orderTransitionStamps(to: OrderStatus, now: Date) {
  return {
    completedAt: to === 'completed' ? now : null,
    // A settle that kept reverting wrote why on the order; once completed, that is history, not a reason.
    clearFailureReason: to === 'completed',
  };
}

/** A quote request is open until its `expiresAt` (exclusive), whatever the expiry sweep has written yet. */
export function quoteRequestExpired(expiresAt: Date, now: Date): boolean {
  return expiresAt.getTime() <= now.getTime();
}

/** A quote holds until its `endTime` (unix seconds, exclusive): for accepting it, and for executing it. */
export function quoteEnded(endTimeSeconds: number, now: Date): boolean {
  return endTimeSeconds * 1000 <= now.getTime();
}

/** A row's stored status can lag behind the clock until the expiry sweep runs; readers see the truth. */
export function effectiveQuoteRequestStatus(status: QuoteRequestStatus, expiresAt: Date, now: Date) {
  return status === 'open' && quoteRequestExpired(expiresAt, now) ? 'expired' : status;
}

export function effectiveQuoteStatus(status: QuoteStatus, endTimeSeconds: number, now: Date): QuoteStatus {
  return status === 'active' && quoteEnded(endTimeSeconds, now) ? 'expired' : status;
}

export function isQuoteRequestOpen(request: { status: QuoteRequestStatus; expiresAt: Date }, now: Date) {
  return effectiveQuoteRequestStatus(request.status, request.expiresAt, now) === 'open';
}

/** Why a quote cannot be accepted or executed now; each maps to one API error. */
export type QuoteRefusal =
  | { readonly code: 'QUOTE_EXPIRED' }
  | { readonly code: 'QUOTE_NOT_ACTIVE'; readonly status: QuoteStatus }
  | { readonly code: 'QUOTE_REQUEST_CLOSED' };

/** An `active` quote within its endTime, on a request still open, may be accepted; null when it may. */
export function acceptRefusal(
  quote: { status: QuoteStatus; endTime: number },
  request: { status: QuoteRequestStatus; expiresAt: Date },
  now: Date,
): QuoteRefusal | null {
  const status = effectiveQuoteStatus(quote.status, quote.endTime, now);
  if (status === 'expired') return { code: 'QUOTE_EXPIRED' };
  if (status !== 'active') return { code: 'QUOTE_NOT_ACTIVE', status };
  if (!isQuoteRequestOpen(request, now)) return { code: 'QUOTE_REQUEST_CLOSED' };
  return null;
}

/**
 * An accepted quote becomes an order only until its endTime: it keeps its `accepted` status after that, but can no
 * longer be executed. Null when it may be executed now.
 */
export function executeRefusal(
  quote: { status: QuoteStatus; endTime: number },
  now: Date,
): Exclude<QuoteRefusal, { code: 'QUOTE_REQUEST_CLOSED' }> | null {
  const status = effectiveQuoteStatus(quote.status, quote.endTime, now);
  if (status === 'expired' || (status === 'accepted' && quoteEnded(quote.endTime, now))) {
    return { code: 'QUOTE_EXPIRED' };
  }
  if (status !== 'accepted') return { code: 'QUOTE_NOT_ACTIVE', status };
  return null;
}

/** When a new quote request stops taking quotes. */
export function quoteRequestExpiresAt(createdAt: Date, ttlSeconds: number): Date {
  return new Date(createdAt.getTime() + ttlSeconds * 1000);
}
