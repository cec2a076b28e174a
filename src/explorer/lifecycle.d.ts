// GENERATED FILE: do not edit. Compiled from src/domain/lifecycle.ts by
// scripts/generate-explorer-modules.ts (`npm run generate:explorer`); test/explorer-search-shape.test.ts
// fails when it is stale.
/**
 * Status sets, the forward-only transitions of docs/lifecycles.md, and the clock's part in them. Pure and
 * import-free: scripts/generate-explorer-modules.ts compiles it for the explorer too.
 */
export declare const QUOTE_REQUEST_STATUSES: readonly ["open", "accepted", "expired", "cancelled"];
export type QuoteRequestStatus = (typeof QUOTE_REQUEST_STATUSES)[number];
export declare const QUOTE_STATUSES: readonly ["active", "accepted", "declined", "expired", "withdrawn"];
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export declare const ORDER_STATUSES: readonly ["created", "deposited", "filled", "completed", "failed", "refunded"];
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export declare function canTransitionQuote(from: QuoteStatus, to: QuoteStatus): boolean;
export declare const TERMINAL_ORDER_STATUSES: readonly OrderStatus[];
export declare function canTransitionOrder(from: OrderStatus, to: OrderStatus): boolean;
export declare function isTerminalOrderStatus(status: OrderStatus): boolean;
/** Orders the settlement worker still has work on: every status but the terminal ones. */
export declare const WORKING_ORDER_STATUSES: readonly OrderStatus[];
/**
 * How far along its lifecycle a status is (created 0 … terminal last): a status never ranks below one it can follow,
 * so a late or replayed event can be told from news.
 */
export declare function orderStatusRank(status: OrderStatus): number;
/** Orders whose output is still to be delivered: those a fill can still move to `filled`. */
export declare const UNFILLED_ORDER_STATUSES: readonly OrderStatus[];
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
export declare function orderTransitionStamps(to: OrderStatus, now: Date): {
    completedAt: any;
    clearFailureReason: boolean;
};
/** A quote request is open until its `expiresAt` (exclusive), whatever the expiry sweep has written yet. */
export declare function quoteRequestExpired(expiresAt: Date, now: Date): boolean;
/** A quote holds until its `endTime` (unix seconds, exclusive): for accepting it, and for executing it. */
export declare function quoteEnded(endTimeSeconds: number, now: Date): boolean;
/** A row's stored status can lag behind the clock until the expiry sweep runs; readers see the truth. */
export declare function effectiveQuoteRequestStatus(status: QuoteRequestStatus, expiresAt: Date, now: Date): "open" | "accepted" | "expired" | "cancelled";
export declare function effectiveQuoteStatus(status: QuoteStatus, endTimeSeconds: number, now: Date): QuoteStatus;
export declare function isQuoteRequestOpen(request: {
    status: QuoteRequestStatus;
    expiresAt: Date;
}, now: Date): boolean;
/** Why a quote cannot be accepted or executed now; each maps to one API error. */
export type QuoteRefusal = {
    readonly code: 'QUOTE_EXPIRED';
} | {
    readonly code: 'QUOTE_NOT_ACTIVE';
    readonly status: QuoteStatus;
} | {
    readonly code: 'QUOTE_REQUEST_CLOSED';
};
/** An `active` quote within its endTime, on a request still open, may be accepted; null when it may. */
export declare function acceptRefusal(quote: {
    status: QuoteStatus;
    endTime: number;
}, request: {
    status: QuoteRequestStatus;
    expiresAt: Date;
}, now: Date): QuoteRefusal | null;
/**
 * An accepted quote becomes an order only until its endTime: it keeps its `accepted` status after that, but can no
 * longer be executed. Null when it may be executed now.
 */
export declare function executeRefusal(quote: {
    status: QuoteStatus;
    endTime: number;
}, now: Date): Exclude<QuoteRefusal, {
    code: 'QUOTE_REQUEST_CLOSED';
}> | null;
/** When a new quote request stops taking quotes. */
export declare function quoteRequestExpiresAt(createdAt: Date, ttlSeconds: number): Date;
