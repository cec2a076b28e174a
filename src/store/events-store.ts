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
