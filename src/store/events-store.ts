import type { Executor } from './db-types.ts';

export interface StoredEvent {
  readonly id: number;
  readonly type: string;
  readonly occurredAt: Date;
  readonly data: unknown;
  readonly accountIds: readonly string[];
}

export async function insertEvent(
  db: Executor,
  event: { type: string; occurredAt: Date; data: unknown; accountIds: readonly string[] },
): Promise<void> {
  await db
    .insertInto('events')
    .values({
      type: event.type,
      occurred_at: event.occurredAt.getTime(),
      data: JSON.stringify(event.data),
      account_ids: JSON.stringify(event.accountIds),
    })
    .execute();
}

/** Events after `afterId`, oldest first: the replay and tail query of the event log. */
export async function listEventsAfter(db: Executor, afterId: number, limit: number): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    type: row.type,
    occurredAt: new Date(row.occurred_at),
    data: JSON.parse(row.data) as unknown,
    accountIds: JSON.parse(row.account_ids) as string[],
  }));
}

/**
 * The `order.created` / `order.updated` events of one order, oldest first: its timeline. The event log has no order
 * column, so this narrows by type and by the id's text inside the JSON, then checks `data.id` exactly (LIKE's `_`
 * matches any character, and SQLite's LIKE ignores case). A scan of the order events: fine for an explorer's
 * detail view; an `order_id` column would index it if the log grows large.
 */
export async function listOrderEvents(db: Executor, orderId: string, limit = 100): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('type', 'in', ['order.created', 'order.updated'])
    .where('data', 'like', `%"id":${JSON.stringify(orderId)}%`)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows
    .map((row) => ({
      id: Number(row.id),
      type: row.type,
      occurredAt: new Date(row.occurred_at),
      data: JSON.parse(row.data) as unknown,
      accountIds: JSON.parse(row.account_ids) as string[],
    }))
    .filter((event) => (event.data as { id?: unknown } | null)?.id === orderId);
}
