import { PostgresAdapter, sql } from 'kysely';
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

/** Any fixed number: the advisory lock that orders event writers ('Ferry' in ASCII). */
const EVENT_LOCK_KEY = 0x4665727279;

/**
 * On PostgreSQL an identity id is taken at insert but becomes visible at commit, so a transaction holding id 11
 * can commit before the one holding id 10, and a tailer that already passed 11 would never see 10. Holding one
 * transaction-scoped advisory lock from the first event insert to commit makes event ids commit in id order.
 * SQLite has a single writer already. Callers append after their transaction's last row update, so no transaction
 * waits for a row lock while holding this one (no deadlock).
 */
async function serialiseEventWriters(trx: Executor): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock(${EVENT_LOCK_KEY})`.execute(trx);
}

export function createEventLog(): EventLog {
  const listeners = new Set<() => void>();
  return {
    async append(trx, event) {
      await serialiseEventWriters(trx);
      await insertEvent(trx, event);
    },
    committed() {
      for (const listener of listeners) listener();
    },
    onCommitted(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
