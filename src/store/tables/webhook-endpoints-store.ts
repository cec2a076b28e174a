import { sql } from 'kysely';
import type { FerryDatabase } from '../engine/database.ts';
import type { Executor } from '../engine/db-types.ts';
import { latestEventId } from '../engine/events-store.ts';

export interface WebhookEndpointRow {
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  /** null: every event type of the account channel. */
  readonly events: readonly string[] | null;
  readonly createdAt: Date;
}

/** What a dispatcher needs to send to an endpoint it has claimed. */
export interface ClaimedEndpoint {
  readonly id: string;
  readonly url: string;
  readonly secret: string;
  /** Its failed attempts in a row when claimed (0: in good standing). */
  readonly failures: number;
  /** The claim's own lease: releasing checks it, so a claim that lapsed cannot free another holder's. */
  readonly leaseUntil: number;
}

/**
 * Inserts the endpoint unless the account already has `max`: 'limit' then, and nothing written. On PostgreSQL the
 * account's row is locked first, so two creates at once cannot both see nine and make eleven (SQLite has one writer).
 */
export async function insertEndpointWithin(
  database: FerryDatabase,
  row: WebhookEndpointRow & { secret: string },
  max: number,
): Promise<'created' | 'limit'> {
  return database.transaction(async (trx) => {
    if (database.dialect === 'postgres') {
      await sql`select id from accounts where id = ${row.accountId} for update`.execute(trx);
    }
    const counted = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', row.accountId)
      .executeTakeFirstOrThrow();
    if (Number(counted.n) >= max) return 'limit';
    await trx
      .insertInto('webhook_endpoints')
      .values({
        id: row.id,
        account_id: row.accountId,
        url: row.url,
        events: row.events === null ? null : JSON.stringify(row.events),
        secret: row.secret,
        // Only events written after the endpoint reach it, whatever the dispatchers' cursor has still to read.
        after_event_id: await latestEventId(trx),
        created_at: row.createdAt.getTime(),
        lease_until: null,
      })
      .execute();
    return 'created';
  });
}

const toEndpoint = (row: {
  id: string;
  account_id: string;
  url: string;
  events: string | null;
  created_at: number;
}): WebhookEndpointRow => ({
  id: row.id,
  accountId: row.account_id,
  url: row.url,
  events: row.events === null ? null : (JSON.parse(row.events) as string[]),
  createdAt: new Date(Number(row.created_at)),
});

/** The account's endpoints, oldest first, without their secrets. */
export async function listEndpoints(db: Executor, accountId: string): Promise<WebhookEndpointRow[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'account_id', 'url', 'events', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map(toEndpoint);
}

export async function findEndpoint(
  db: Executor,
  accountId: string,
  id: string,
): Promise<WebhookEndpointRow | null> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'account_id', 'url', 'events', 'created_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toEndpoint(row) : null;
}

/** The endpoint's signing secret, or null when the account has no such endpoint. */
export async function findEndpointSecret(
  db: Executor,
  accountId: string,
  id: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('secret')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.secret ?? null;
}

/** Deletes the endpoint and (by cascade) its deliveries and their attempts; false when the account has no such one. */
export async function deleteEndpoint(db: Executor, accountId: string, id: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('webhook_endpoints')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/**
 * Claims up to `limit` endpoints that have a delivery due, are not backing off and have no dispatcher on them, for
 * `leaseMs`: the claimer alone makes their next attempt, and each endpoint has one request in flight. `failing`
 * picks the endpoints whose last attempt failed (true) or those in good standing (false), so a dispatcher can keep
 * slots for the latter. The endpoint claimed longest ago goes first (round-robin), whatever its id. On PostgreSQL
 * `for update skip locked` lets instances claim side by side without waiting on each other's rows; SQLite has a
 * single writer.
 */
export async function claimEndpoints(
  database: FerryDatabase,
  options: { now: number; leaseMs: number; limit: number; failing: boolean },
): Promise<ClaimedEndpoint[]> {
  const { db } = database;
  const { now } = options;
  const candidates = db
    .selectFrom('webhook_endpoints as e')
    .select('e.id')
    .where((eb) => eb.or([eb('e.lease_until', 'is', null), eb('e.lease_until', '<', now)]))
    .where((eb) => eb.or([eb('e.retry_at', 'is', null), eb('e.retry_at', '<=', now)]))
    .where('e.failures', options.failing ? '>' : '=', 0)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('webhook_deliveries as d')
          .select('d.id')
          .whereRef('d.endpoint_id', '=', 'e.id')
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', now),
      ),
    )
    .orderBy(sql`coalesce(e.claimed_at, 0)`)
    .orderBy('e.id')
    .limit(options.limit);
  // The claim is a write, and every commit of the API wakes the dispatcher: on SQLite a write that changes nothing
  // still takes the write lock and commits (150 µs on the event loop, twice a wake: a third of the CPU of a server
  // taking 1,000 quotes a second one at a time). The same candidates read first, without a lock, skip it when none.
  if ((await candidates.select(sql<number>`1`.as('due')).limit(1).execute()).length === 0) return [];
  const leaseUntil = now + options.leaseMs;
  const rows = await db
    .updateTable('webhook_endpoints')
    .set({ lease_until: leaseUntil, claimed_at: now })
    .where(
      'id',
      'in',
      candidates.$if(database.dialect === 'postgres', (qb) => qb.forUpdate().skipLocked()),
    )
    .returning(['id', 'url', 'secret', 'failures'])
    .execute();
  return rows.map((row) => ({ ...row, failures: Number(row.failures), leaseUntil }));
}

/** Lets any dispatcher claim the endpoint again: after an attempt, or when this one stops. */
export async function releaseEndpoint(
  db: Executor,
  claim: Pick<ClaimedEndpoint, 'id' | 'leaseUntil'>,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ lease_until: null })
    .where('id', '=', claim.id)
    .where('lease_until', '=', claim.leaseUntil)
    .execute();
}
