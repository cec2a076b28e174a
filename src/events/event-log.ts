import type { Executor } from '../store/db-types.ts';
import { insertEvent } from '../store/events-store.ts';

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

export interface NewEvent {
  readonly type: EventType;
  readonly occurredAt: Date;
  /** The public view; the only part the anonymous stream ever sends. */
  readonly data: unknown;
  /** Accounts whose private `account` channel receives the event. */
  readonly accountIds: readonly string[];
}

/**
 * The single source of the streams. Callers append inside the same transaction as the state change,
 * so an event exists if and only if its change committed.
 */
export interface EventLog {
  append(trx: Executor, event: NewEvent): Promise<void>;
  /** Called after a commit that appended events, to wake up stream readers without waiting for a poll. */
  committed(): void;
  onCommitted(listener: () => void): () => void;
}

export function createEventLog(): EventLog {
  const listeners = new Set<() => void>();
  return {
    append: (trx, event) => insertEvent(trx, event),
    committed() {
      for (const listener of listeners) listener();
    },
    onCommitted(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
