import { CompiledQuery } from 'kysely';
import type { NewEvent } from '../../domain/events.ts';
import { compiledQuery } from './compiled-query.ts';
import { type Executor, isPostgres } from './db-types.ts';
import { StoreError } from './store-errors.ts';

export interface StoredEvent {
  readonly id: number;
  readonly type: string;
  readonly occurredAt: Date;
  readonly data: unknown;
  readonly accountIds: readonly string[];
}

/**
 * PostgreSQL event ids carry their transaction: id = xid * EVENTS_PER_TRANSACTION + position in the transaction.
 * Ids then sort exactly as the tailer may deliver them (see readFinalEventsAfter), no lock orders the writers, and
 * ids stay exact JavaScript numbers up to xid 2^43 (8.8 trillion transactions).
 */
export const EVENTS_PER_TRANSACTION = 1024;

// The xid is read before the rows are built, so the whole batch shares it; one statement for all the events.
const APPEND_PG = `insert into events (id, xid, type, occurred_at, data, account_ids)
select t.xid::text::bigint * ${EVENTS_PER_TRANSACTION} + e.n - 1, t.xid, e.type, e.occurred_at, e.data, e.account_ids
from (select pg_current_xact_id() as xid) t,
  unnest($1::text[], $2::int8[], $3::text[], $4::text[]) with ordinality as e(type, occurred_at, data, account_ids, n)`;

const appendParameters = (events: readonly NewEvent[]) => [
  events.map((e) => e.type),
  events.map((e) => e.occurredAt.getTime()),
  events.map((e) => JSON.stringify(e.data)),
  events.map((e) => JSON.stringify(e.accountIds)),
];

// The append's $1…$4 renumbered to follow a change's parameters: one text per parameter count, made once.
const appendTexts = new Map<number, string>();
function appendAfter(offset: number): string {
  let text = appendTexts.get(offset);
  if (text === undefined) {
    text = APPEND_PG.replace(/\$(\d)/g, (_, n: string) => `$${Number(n) + offset}`);
    appendTexts.set(offset, text);
  }
  return text;
}

/**
 * PostgreSQL only: `change` and the append of `events` as one statement (`with change as (…) insert into events
 * …`), so the row change and its events commit together without a transaction block. The CTE runs whether or not
 * it is referenced, in the same statement, hence under the same xid the event ids are made from. With
 * `onlyIfChanged`, `change` must return its rows (`returning`): the events are appended only when it wrote one.
 */
export function changeWithEvents(
  change: CompiledQuery,
  events: readonly NewEvent[],
  options: { onlyIfChanged?: boolean } = {},
): CompiledQuery {
  if (events.length > EVENTS_PER_TRANSACTION) {
    throw new StoreError(`a transaction may append at most ${EVENTS_PER_TRANSACTION} events`);
  }
  // A change that may write nothing returns its rows, and the events follow only a change that wrote one.
  const condition = options.onlyIfChanged ? ' where exists (select 1 from change)' : '';
  return CompiledQuery.raw(
    `with change as (${change.sql}) ${appendAfter(change.parameters.length)}${condition}`,
    [...change.parameters, ...appendParameters(events)],
  );
}

/**
 * Appends the events of one unit of work, after its last row change (database.ts calls this; nothing else may:
 * on PostgreSQL a second append in the same transaction would collide on the ids).
 */
export async function appendEvents(db: Executor, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (!isPostgres(db)) {
    // SQLite has one writer, so autoincrement ids commit in id order already.
    for (const event of events) {
      await insertRow(db, {
        type: event.type,
        occurred_at: event.occurredAt.getTime(),
        data: JSON.stringify(event.data),
        account_ids: JSON.stringify(event.accountIds),
      });
    }
    return;
  }
  if (events.length > EVENTS_PER_TRANSACTION) {
    throw new StoreError(`a transaction may append at most ${EVENTS_PER_TRANSACTION} events`);
  }
  await db.executeQuery(CompiledQuery.raw(APPEND_PG, appendParameters(events)));
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

/** The newest event id, 0 for an empty log (on PostgreSQL it may still have older ids in flight). */
export async function latestEventId(db: Executor): Promise<number> {
  const { rows } = await selectLatestId(db, {});
  return Number(rows[0]?.id ?? 0);
}

/** The horizon: every transaction with an xid below the snapshot's xmin has ended, so its events are all visible. */
const HORIZON_PG = `(select pg_snapshot_xmin(pg_current_snapshot())::text::bigint * ${EVENTS_PER_TRANSACTION})`;

const TAIL_PG = `select id, type, occurred_at, data, account_ids, id < ${HORIZON_PG} as final
from events where id > $1 order by id limit $2`;

const LATEST_FINAL_PG = `select max(id) as id from events where id < ${HORIZON_PG}`;

/**
 * The events after `afterId` that can be delivered now, oldest first: the replay and tail query of the event log.
 * On PostgreSQL an event is final once no transaction that could still append a smaller id is running: its id is
 * below the horizon (xid below the snapshot's xmin: such transactions have committed or rolled back). Ids are
 * xid-major, so the final events are exactly a prefix of what is visible; `heldBack` says visible events wait
 * behind a running transaction (read again soon). Reading from the last delivered id never skips one.
 */
export async function readFinalEventsAfter(
  db: Executor,
  afterId: number,
  limit: number,
): Promise<{ events: StoredEvent[]; heldBack: boolean }> {
  if (!isPostgres(db)) {
    const { rows } = await selectAfter(db, { afterId, limit });
    return { events: rows.map(toStoredEvent), heldBack: false };
  }
  const { rows } = await db.executeQuery<EventRow & { final: boolean }>(
    CompiledQuery.raw(TAIL_PG, [afterId, limit]),
  );
  const events: StoredEvent[] = [];
  for (const row of rows) {
    if (!row.final) return { events, heldBack: true };
    events.push(toStoredEvent(row));
  }
  return { events, heldBack: false };
}

/** The newest event id that can be delivered now (see readFinalEventsAfter), 0 for an empty log. */
export async function latestFinalEventId(db: Executor): Promise<number> {
  if (!isPostgres(db)) return latestEventId(db);
  const { rows } = await db.executeQuery<{ id: number | null }>(CompiledQuery.raw(LATEST_FINAL_PG, []));
  return Number(rows[0]?.id ?? 0);
}

/** Whether more than `window` events follow `afterId`, or `afterId` lies beyond the log (another log's id). */
export async function replayWindowExceeded(db: Executor, afterId: number, window: number): Promise<boolean> {
  const beyond = await db
    .selectFrom('events')
    .select('id')
    .where('id', '>', afterId)
    .orderBy('id')
    .offset(window)
    .limit(1)
    .executeTakeFirst();
  if (beyond) return true;
  return afterId > (await latestEventId(db));
}

/** One event of the log by its id, or null (webhook deliveries send the event they were made for). */
export async function readEvent(db: Executor, id: number): Promise<StoredEvent | null> {
  const row = await db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toStoredEvent(row) : null;
}

interface EventRow {
  readonly id: number;
  readonly type: string;
  readonly occurred_at: number;
  readonly data: string;
  readonly account_ids: string;
}

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: Number(row.id),
    type: row.type,
    occurredAt: new Date(Number(row.occurred_at)),
    data: JSON.parse(row.data) as unknown,
    accountIds: JSON.parse(row.account_ids) as string[],
  };
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
  return rows.map(toStoredEvent).filter((event) => (event.data as { id?: unknown } | null)?.id === orderId);
}
