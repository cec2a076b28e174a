import { FerryError } from '../../domain/ferry-error.ts';
import type { FerryDatabase } from '../engine/database.ts';
import type { Executor } from '../engine/db-types.ts';
import { readFinalEventsAfter } from '../engine/events-store.ts';

const CURSOR = 'deliveries';

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'refused';

export interface DueDelivery {
  readonly id: string;
  readonly eventId: number;
  readonly eventType: string;
  readonly attempts: number;
  readonly failures: number;
}

export interface AttemptRow {
  readonly attempt: number;
  readonly attemptedAt: Date;
  readonly outcome: AttemptOutcome;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly nextAttemptAt: Date | null;
}

export interface DeliveryRow {
  readonly id: string;
  readonly eventId: number;
  readonly eventType: string;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly attempts: readonly AttemptRow[];
}

/** Another dispatcher moved the cursor first: this batch's deliveries are rolled back, they are its to make. */
class CursorMoved extends FerryError {
  override readonly name = 'CursorMoved';
  constructor() {
    super('another dispatcher moved the webhook cursor', { retryable: true });
  }
}

/**
 * Turns the next events of the log into deliveries, one per endpoint of an account the event names whose filter
 * takes its type, and moves the cursor past them, in one transaction: a delivery is made exactly once, however
 * many instances run this, and none is lost to a crash. Only final events are read (readFinalEventsAfter), so
 * an event committing late on PostgreSQL is never skipped. Returns how many events were read (0: caught up).
 */
export async function enqueueDeliveries(
  database: FerryDatabase,
  options: { now: number; limit: number; newId: () => string; wanted: (type: string) => boolean },
): Promise<number> {
  const { db } = database;
  const cursor = await db
    .selectFrom('webhook_cursor')
    .select('position')
    .where('name', '=', CURSOR)
    .executeTakeFirstOrThrow();
  const from = Number(cursor.position);
  const { events } = await readFinalEventsAfter(db, from, options.limit);
  if (events.length === 0) return 0;
  const accounts = [...new Set(events.flatMap((event) => event.accountIds))];
  const endpoints =
    accounts.length === 0
      ? []
      : await db
          .selectFrom('webhook_endpoints')
          .select(['id', 'account_id', 'events', 'after_event_id'])
          .where('account_id', 'in', accounts)
          .orderBy('id')
          .execute();
  const rows = events.flatMap((event) =>
    endpoints
      .filter(
        (endpoint) =>
          options.wanted(event.type) &&
          event.accountIds.includes(endpoint.account_id) &&
          event.id > Number(endpoint.after_event_id) &&
          (endpoint.events === null || (JSON.parse(endpoint.events) as string[]).includes(event.type)),
      )
      .map((endpoint) => ({
        id: options.newId(),
        endpoint_id: endpoint.id,
        event_id: event.id,
        event_type: event.type,
        status: 'pending',
        next_attempt_at: options.now,
        created_at: options.now,
        updated_at: options.now,
      })),
  );
  const to = events.at(-1)?.id ?? from;
  try {
    await database.transaction(async (trx) => {
      if (rows.length > 0) {
        await trx
          .insertInto('webhook_deliveries')
          .values(rows)
          .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
          .execute();
      }
      const moved = await trx
        .updateTable('webhook_cursor')
        .set({ position: to })
        .where('name', '=', CURSOR)
        .where('position', '=', from)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) throw new CursorMoved();
    });
  } catch (error) {
    if (error instanceof CursorMoved) return 0;
    throw error;
  }
  return events.length;
}

/**
 * The endpoint's next delivery to attempt: the one due longest, then the oldest event. Deliveries go out in event
 * order; one waiting for its retry does not hold back the newer ones behind it, and while the endpoint backs off its
 * probes go round its deliveries (one delivery does not use up its own schedule while the others never get a try).
 */
export async function nextDueDelivery(
  db: Executor,
  endpointId: string,
  now: number,
): Promise<DueDelivery | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'event_type', 'attempts', 'failures'])
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('event_id')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    eventId: Number(row.event_id),
    eventType: row.event_type,
    attempts: Number(row.attempts),
    failures: Number(row.failures),
  };
}

/**
 * Records attempt `attempt` of a delivery and its new state, and the endpoint's standing (`endpoint`: its failures
 * in a row and its backoff) when the attempt says something about the receiver, in one transaction. Compare-and-set
 * on the attempt count: a dispatcher whose hold on the endpoint lapsed (another took over) records nothing. Returns
 * whether it did.
 */
export async function recordAttempt(
  database: FerryDatabase,
  input: {
    deliveryId: string;
    attempt: number;
    failures: number;
    at: number;
    outcome: AttemptOutcome;
    statusCode: number | null;
    error: string | null;
    nextAttemptAt: number | null;
    endpoint: { id: string; failures: number; retryAt: number | null } | null;
  },
): Promise<boolean> {
  const status =
    input.outcome === 'delivered' ? 'delivered' : input.outcome === 'failed' ? 'failed' : 'pending';
  return database.transaction(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        attempts: input.attempt,
        failures: input.failures,
        next_attempt_at: input.nextAttemptAt,
        updated_at: input.at,
      })
      .where('id', '=', input.deliveryId)
      .where('attempts', '=', input.attempt - 1)
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) return false;
    if (input.endpoint) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ failures: input.endpoint.failures, retry_at: input.endpoint.retryAt })
        .where('id', '=', input.endpoint.id)
        .execute();
    }
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: input.deliveryId,
        attempt: input.attempt,
        attempted_at: input.at,
        outcome: input.outcome,
        status_code: input.statusCode,
        error: input.error,
        next_attempt_at: input.nextAttemptAt,
      })
      .execute();
    return true;
  });
}

/**
 * The endpoint's newest deliveries, newest first, each with its attempts in order. A pending delivery's next
 * attempt is its own, or later when the endpoint is backing off.
 */
export async function listDeliveries(
  db: Executor,
  endpointId: string,
  limit: number,
): Promise<DeliveryRow[]> {
  const endpoint = await db
    .selectFrom('webhook_endpoints')
    .select('retry_at')
    .where('id', '=', endpointId)
    .executeTakeFirst();
  const heldUntil = Number(endpoint?.retry_at ?? 0);
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('event_id', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  if (deliveries.length === 0) return [];
  const attempts = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where(
      'delivery_id',
      'in',
      deliveries.map((d) => d.id),
    )
    .orderBy('attempt')
    .execute();
  const ms = (value: number | null) => (value === null ? null : new Date(Number(value)));
  return deliveries.map((d) => ({
    id: d.id,
    eventId: Number(d.event_id),
    eventType: d.event_type,
    status: d.status as DeliveryRow['status'],
    nextAttemptAt:
      d.status === 'pending' && d.next_attempt_at !== null
        ? new Date(Math.max(Number(d.next_attempt_at), heldUntil))
        : null,
    createdAt: new Date(Number(d.created_at)),
    attempts: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({
        attempt: Number(a.attempt),
        attemptedAt: new Date(Number(a.attempted_at)),
        outcome: a.outcome as AttemptOutcome,
        statusCode: a.status_code === null ? null : Number(a.status_code),
        error: a.error,
        nextAttemptAt: ms(a.next_attempt_at),
      })),
  }));
}

/**
 * Schedules a delivered or failed delivery again, now, with a fresh backoff, and ends the endpoint's backoff (the
 * account says its receiver is back; if it still fails, the endpoint backs off again from the step it had reached).
 * 'pending' when it is already scheduled (nothing changed), 'missing' when the endpoint has no such delivery.
 */
export async function retryDelivery(
  database: FerryDatabase,
  endpointId: string,
  deliveryId: string,
  now: number,
): Promise<'scheduled' | 'pending' | 'missing'> {
  const { db } = database;
  const scheduled = await database.transaction(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', failures: 0, next_attempt_at: now, updated_at: now })
      .where('id', '=', deliveryId)
      .where('endpoint_id', '=', endpointId)
      .where('status', '!=', 'pending')
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) return false;
    await trx.updateTable('webhook_endpoints').set({ retry_at: null }).where('id', '=', endpointId).execute();
    return true;
  });
  if (scheduled) return 'scheduled';
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  return row ? 'pending' : 'missing';
}
