import { compiledQuery } from './compiled-query.ts';
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
  await insertRow(db, {
    type: event.type,
    occurred_at: event.occurredAt.getTime(),
    data: JSON.stringify(event.data),
    account_ids: JSON.stringify(event.accountIds),
  });
}

const insertRow = compiledQuery(
  (db, row: { type: string; occurred_at: number; data: string; account_ids: string }) =>
    db.insertInto('events').values({
      type: row.type,
      occurred_at: row.occurred_at,
      data: row.data,
      account_ids: row.account_ids,
    }),
);

const selectAfter = compiledQuery((db, p: { afterId: number; limit: number }) =>
  db.selectFrom('events').selectAll().where('id', '>', p.afterId).orderBy('id').limit(p.limit),
);

const selectLatestId = compiledQuery((db, _: object) =>
  db.selectFrom('events').select((eb) => eb.fn.max('id').as('id')),
);

/** The newest event id, 0 for an empty log. */
export async function latestEventId(db: Executor): Promise<number> {
  const { rows } = await selectLatestId(db, {});
  return Number(rows[0]?.id ?? 0);
}

/** Events after `afterId`, oldest first: the replay and tail query of the event log. */
export async function listEventsAfter(db: Executor, afterId: number, limit: number): Promise<StoredEvent[]> {
  const { rows } = await selectAfter(db, { afterId, limit });
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
