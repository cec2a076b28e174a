/** Status sets and the forward-only transitions of docs/lifecycles.md. */

export const QUOTE_REQUEST_STATUSES = ['open', 'accepted', 'expired', 'cancelled'] as const;
export type QuoteRequestStatus = (typeof QUOTE_REQUEST_STATUSES)[number];

export const QUOTE_STATUSES = ['active', 'accepted', 'declined', 'expired', 'withdrawn'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

export const ORDER_STATUSES = ['created', 'deposited', 'filled', 'completed', 'failed', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

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

/** A row's stored status can lag behind the clock until the expiry sweep runs; readers see the truth. */
export function effectiveQuoteRequestStatus(status: QuoteRequestStatus, expiresAt: Date, now: Date) {
  return status === 'open' && expiresAt.getTime() <= now.getTime() ? 'expired' : status;
}

export function effectiveQuoteStatus(status: QuoteStatus, endTimeSeconds: number, now: Date): QuoteStatus {
  return status === 'active' && endTimeSeconds * 1000 <= now.getTime() ? 'expired' : status;
}
