export const EVENT_TYPES = [
  'quoteRequest.created',
  'quoteRequest.expired',
  'quote.created',
  'quote.accepted',
  'quote.declined',
  'quote.expired',
  'order.created',
  'order.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as a unit of work queues it; the store gives it its id when the transaction appends it. */
export interface NewEvent {
  readonly type: EventType;
  readonly occurredAt: Date;
  /** The public view; the only part the anonymous stream ever sends. */
  readonly data: unknown;
  /** Accounts whose private `account` channel receives the event. */
  readonly accountIds: readonly string[];
}
