import type { Selectable } from 'kysely';
import type { OrderStatus } from '../domain/lifecycle.ts';
import type { Order } from '../domain/records.ts';
import type { Executor } from './db-types.ts';
import { toOrder } from './orders-store.ts';
import type { ChainActionsTable } from './schema.ts';

export type ChainActionKind = 'deposit' | 'settle' | 'refund';
export type ChainAction = Selectable<ChainActionsTable>;

const WORKING_STATUSES: OrderStatus[] = ['created', 'deposited', 'filled'];

/**
 * Leases up to `limit` orders that need work and are not leased by a live worker. Each lease is a
 * compare-and-set on the row, so two workers never hold one order at once, on SQLite or PostgreSQL.
 */
export async function claimOrders(db: Executor, owner: string, now: number, leaseMs: number, limit: number) {
  const candidates = await db
    .selectFrom('orders')
    .select(['id', 'lease_owner', 'lease_expires_at'])
    .where('status', 'in', WORKING_STATUSES)
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  const claimed: { order: Order; attempts: number }[] = [];
  for (const candidate of candidates) {
    const result = await db
      .updateTable('orders')
      .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
      .where('id', '=', candidate.id)
      .where((eb) =>
        candidate.lease_expires_at === null
          ? eb('lease_expires_at', 'is', null)
          : eb('lease_expires_at', '=', candidate.lease_expires_at),
      )
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) continue;
    const row = await db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', candidate.id)
      .executeTakeFirstOrThrow();
    claimed.push({ order: toOrder(row), attempts: Number(row.attempts) });
  }
  return claimed;
}

/** Gives the order back, to be looked at again no earlier than `nextAttemptAt`. */
export async function releaseOrder(
  db: Executor,
  id: string,
  owner: string,
  nextAttemptAt: number,
  failed: boolean,
) {
  await db
    .updateTable('orders')
    .set((eb) => ({
      lease_owner: null,
      lease_expires_at: null,
      next_attempt_at: nextAttemptAt,
      attempts: failed ? eb('attempts', '+', 1) : 0,
    }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

export interface OrderChange {
  readonly status: OrderStatus;
  readonly srcChainTxHash?: string;
  readonly dstChainTxHash?: string;
  readonly settlementTxHash?: string;
  readonly failureReason?: string;
  readonly completedAt?: Date;
}

/** Moves an order forward from exactly `from`; false when another writer already moved it. */
export async function transitionOrder(
  db: Executor,
  id: string,
  from: OrderStatus,
  change: OrderChange,
  now: Date,
  actor: string,
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({
      status: change.status,
      ...(change.srcChainTxHash ? { src_chain_tx_hash: change.srcChainTxHash } : {}),
      ...(change.dstChainTxHash ? { dst_chain_tx_hash: change.dstChainTxHash } : {}),
      ...(change.settlementTxHash ? { settlement_tx_hash: change.settlementTxHash } : {}),
      ...(change.failureReason ? { failure_reason: change.failureReason } : {}),
      ...(change.completedAt ? { completed_at: change.completedAt.getTime() } : {}),
      updated_at: now.getTime(),
      updated_by: actor,
    })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findChainAction(db: Executor, orderId: string, kind: ChainActionKind) {
  return (
    (await db
      .selectFrom('chain_actions')
      .selectAll()
      .where('order_id', '=', orderId)
      .where('kind', '=', kind)
      .executeTakeFirst()) ?? null
  );
}

export async function insertChainAction(db: Executor, action: ChainAction): Promise<void> {
  await db.insertInto('chain_actions').values(action).execute();
}

export async function setChainActionStatus(
  db: Executor,
  id: string,
  status: string,
  now: number,
): Promise<void> {
  await db.updateTable('chain_actions').set({ status, updated_at: now }).where('id', '=', id).execute();
}

/**
 * Hands out the next nonce of `address` on `chain`. The row update serialises concurrent workers; the
 * chain's own count wins when it is ahead (transactions sent by other tools with the same key).
 */
export async function allocateNonce(
  db: Executor,
  chain: string,
  address: string,
  chainNonce: number,
): Promise<number> {
  const row = await db
    .selectFrom('chain_nonces')
    .select('next_nonce')
    .where('chain', '=', chain)
    .where('address', '=', address)
    .executeTakeFirst();
  if (!row) {
    await db
      .insertInto('chain_nonces')
      .values({ chain, address, next_nonce: chainNonce + 1 })
      .execute();
    return chainNonce;
  }
  const nonce = Math.max(Number(row.next_nonce), chainNonce);
  const result = await db
    .updateTable('chain_nonces')
    .set({ next_nonce: nonce + 1 })
    .where('chain', '=', chain)
    .where('address', '=', address)
    .where('next_nonce', '=', row.next_nonce)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new Error('nonce allocation raced; retry');
  return nonce;
}

/**
 * Whether a chain action may be written down now: the order still has `expectStatus`, and a release (settle or
 * refund) has no rival written down. On PostgreSQL the row lock serialises this check with status transitions
 * made by other workers.
 */
export async function mayRecord(
  trx: Executor,
  dialect: 'sqlite' | 'postgres',
  orderId: string,
  kind: ChainActionKind,
  expectStatus: OrderStatus,
): Promise<boolean> {
  let query = trx.selectFrom('orders').select('status').where('id', '=', orderId);
  if (dialect === 'postgres') query = query.forUpdate();
  const order = await query.executeTakeFirst();
  if (order?.status !== expectStatus) return false;
  if (kind === 'deposit') return true;
  const rival = await trx
    .selectFrom('chain_actions')
    .select('id')
    .where('order_id', '=', orderId)
    .where('kind', '=', kind === 'settle' ? 'refund' : 'settle')
    .executeTakeFirst();
  return rival === undefined;
}
