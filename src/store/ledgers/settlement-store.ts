import { type Selectable, sql } from 'kysely';
import type { TxAction } from '../../chains/transactions/tx-ledger.ts';
import {
  canTransitionOrder,
  type OrderChange,
  type OrderStatus,
  orderTransitionStamps,
  WORKING_ORDER_STATUSES,
} from '../../domain/lifecycle.ts';
import type { FillAttestation, Order, OrderSettlement } from '../../domain/records.ts';
import { revertsExhausted } from '../../domain/relayer-reverts.ts';
import { actionForbiddingMove, RELEASE_ACTIONS } from '../../domain/settlement-decision.ts';
import type { RelayerActionKind } from '../../domain/settlement-decision-type.ts';
import { type Executor, isPostgres } from '../engine/db-types.ts';
import type { Database, OrdersTable } from '../engine/schema.ts';
import { StoreError } from '../engine/store-errors.ts';
import { findOrderByQuote, toOrder } from '../tables/orders-store.ts';
import { SPENT, servingActions } from './serving-actions.ts';
import { latestLedgerAction } from './tx-ledger-store.ts';

/**
 * `settle`: the attester's relay; `prove`, `commit`, `execute`: Ferry's own push of a LayerZero proof message
 * (FerryApp.prove, ReceiveUln302.commitVerification, EndpointV2.lzReceive) when the filler or LayerZero is late.
 */
export type ChainActionKind = RelayerActionKind;

/**
 * Kinds the decision may send again after one that took effect: a prove after the escrow skipped the delivered
 * proof, and the commit of the next older message on the route. The decision bounds how often; the ledger only
 * keeps one in flight at a time.
 */
const REPEATABLE: ReadonlySet<ChainActionKind> = new Set(['prove', 'commit-gap']);

/**
 * Leases up to `limit` orders that need work and are not leased by a live worker. Each lease is a
 * compare-and-set on the row, so two workers never hold one order at once, on SQLite or PostgreSQL.
 */
export async function claimOrders(db: Executor, owner: string, now: number, leaseMs: number, limit: number) {
  const candidates = await db
    .selectFrom('orders')
    .select(['id', 'lease_owner', 'lease_expires_at'])
    .where('status', 'in', WORKING_ORDER_STATUSES)
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

/**
 * Moves an order forward from exactly `from`, with what entering its new status stamps on it (lifecycle.ts); false
 * when another writer already moved it, or when an action written down meanwhile forbids the move (a refund
 * written down beats a fill seen later: settlement-decision.ts actionForbiddingMove). The one writer of an order's
 * status.
 */
export async function transitionOrder(
  db: Executor,
  id: string,
  from: OrderStatus,
  change: OrderChange,
  now: Date,
  actor: string,
): Promise<boolean> {
  if (!canTransitionOrder(from, change.status)) {
    throw new StoreError(`order ${id}: no transition ${from} → ${change.status}`);
  }
  const stamps = orderTransitionStamps(change.status, now);
  const forbidding = actionForbiddingMove(change.status);
  let update = db
    .updateTable('orders')
    .set({
      status: change.status,
      ...(change.srcChainTxHash ? { src_chain_tx_hash: change.srcChainTxHash } : {}),
      ...(change.dstChainTxHash ? { dst_chain_tx_hash: change.dstChainTxHash } : {}),
      ...(change.filledBy ? { filled_by: change.filledBy } : {}),
      ...(change.settlementTxHash ? { settlement_tx_hash: change.settlementTxHash } : {}),
      ...(change.failureReason ? { failure_reason: change.failureReason } : {}),
      ...(stamps.clearFailureReason ? { failure_reason: null } : {}),
      ...(stamps.completedAt ? { completed_at: stamps.completedAt.getTime() } : {}),
      updated_at: now.getTime(),
      updated_by: actor,
    })
    .where('id', '=', id)
    .where('status', '=', from);
  if (forbidding !== null) {
    update = update.where((eb) => eb.not(eb.exists(servingActions(db, id, [forbidding], true))));
  }
  const result = await update.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The newest action of `kind` for the order (the highest `seq`: a retry after a revert supersedes it). */
export async function findChainAction(
  db: Executor,
  orderId: string,
  kind: ChainActionKind,
): Promise<TxAction | null> {
  return latestLedgerAction<Database>(db, orderId, kind);
}

/** How many of the order's chain actions of each kind reverted on chain (a cancel or a taken nonce is no revert). */
export async function revertedActionCounts(
  db: Executor,
  orderId: string,
): Promise<Partial<Record<ChainActionKind, number>>> {
  const rows = await db
    .selectFrom('chain_actions')
    .select(['kind', (eb) => eb.fn.countAll<number | string | bigint>().as('reverted')])
    .where('order_id', '=', orderId)
    .where('status', '=', 'reverted')
    .groupBy('kind')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.reverted)]));
}

/** Which reverts a money mover's throttle counts (moneyMoverRevertTimes). */
export interface RevertTimesQuery {
  readonly accountId: string;
  readonly kinds: readonly string[];
  readonly since: number;
  readonly limit: number;
}

function revertTimes(db: Executor, input: RevertTimesQuery) {
  return (
    db
      .selectFrom('chain_actions')
      .innerJoin('orders', 'orders.id', 'chain_actions.order_id')
      .select('chain_actions.updated_at as at')
      .where('orders.money_mover_account_id', '=', input.accountId)
      // An order that was deposited anyway (someone else's deposit of the same signed order won) is not its doing.
      .where('orders.status', 'in', ['created', 'failed'])
      .where('chain_actions.status', '=', 'reverted')
      .where('chain_actions.kind', 'in', [...input.kinds])
      .where('chain_actions.updated_at', '>', input.since)
      .orderBy('chain_actions.updated_at', 'desc')
      .limit(input.limit)
  );
}

/**
 * When (unix ms) chain actions of `kinds` for the orders of money mover `accountId` reverted on chain since `since`,
 * newest first, at most `limit`: what the account's revert throttle counts.
 */
export async function moneyMoverRevertTimes(db: Executor, input: RevertTimesQuery): Promise<number[]> {
  const rows = await revertTimes(db, input).execute();
  return rows.map((r) => Number(r.at));
}

/**
 * What a swap reads before it writes, in one round trip: the order already made from quote `quoteId` (null when
 * none) and the money mover's revert times (moneyMoverRevertTimes). A row per revert time, at least one, each
 * carrying the order's columns (null without an order).
 */
export async function orderOfQuoteAndRevertTimes(
  db: Executor,
  quoteId: string,
  reverts: RevertTimesQuery,
): Promise<{ order: Order | null; revertTimes: number[] }> {
  if (!isPostgres(db)) {
    // In process there is no round trip to save, and SQLite runs the two reads alone in a quarter of the time of
    // the join, which materialises the reverts and builds a row of nulls for a swap without an order.
    const order = await findOrderByQuote(db, quoteId);
    return { order, revertTimes: await moneyMoverRevertTimes(db, reverts) };
  }
  const rows = await db
    .selectFrom(sql<{ quote_id: string }>`(select ${quoteId} as quote_id)`.as('k'))
    .leftJoin('orders', 'orders.quote_id', 'k.quote_id')
    .leftJoin(revertTimes(db, reverts).as('r'), (join) => join.onTrue())
    .selectAll('orders')
    .select('r.at as revert_at')
    .execute();
  const first = rows[0];
  const order = first && first.id !== null ? toOrder(first as Selectable<OrdersTable>) : null;
  const times = rows.flatMap((r) => (r.revert_at === null ? [] : [Number(r.revert_at)]));
  return { order, revertTimes: times };
}

/** The status of each order among `ids` (the transaction pass cancels the actions of ended orders). */
export async function orderStatuses(db: Executor, ids: readonly string[]): Promise<Map<string, OrderStatus>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('orders').select(['id', 'status']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.status as OrderStatus]));
}

/**
 * Writes why the order is stuck (a settle or refund that keeps reverting) on the order without moving it, so
 * the money mover and the operator see it; false when the order already says so or has moved on.
 */
export async function noteOrderProblem(
  db: Executor,
  id: string,
  status: OrderStatus,
  reason: string,
  now: Date,
  actor: string,
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ failure_reason: reason, updated_at: now.getTime(), updated_by: actor })
    .where('id', '=', id)
    .where('status', '=', status)
    .where((eb) => eb.or([eb('failure_reason', 'is', null), eb('failure_reason', '!=', reason)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Writes that the deposited order's exclusivity lapsed unfilled (any filler may now fill it); false when that is
 * written already or the order has moved on.
 */
export async function markExclusivityLapsed(
  db: Executor,
  id: string,
  now: Date,
  actor: string,
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ exclusivity_lapsed_at: now.getTime(), updated_at: now.getTime(), updated_by: actor })
    .where('id', '=', id)
    .where('status', '=', 'deposited')
    .where('exclusivity_lapsed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Whether a chain action may be written down now: the order still has `expectStatus`; a release (settle or
 * refund) has no rival written down; and a retry (`seq` > 0) follows an action of its kind that was spent without
 * effect (or, for a REPEATABLE kind, finished either way). On PostgreSQL the row lock serialises this check with status transitions made by other workers.
 */
export async function mayRecord(
  trx: Executor,
  dialect: 'sqlite' | 'postgres',
  input: { orderId: string; kind: ChainActionKind; seq: number; expectStatus: OrderStatus },
): Promise<boolean> {
  const { orderId, kind } = input;
  let query = trx.selectFrom('orders').select('status').where('id', '=', orderId);
  if (dialect === 'postgres') query = query.forUpdate();
  const order = await query.executeTakeFirst();
  if (order?.status !== input.expectStatus) return false;
  if (input.seq > 0) {
    const previous = await findChainAction(trx, orderId, kind);
    if (previous?.seq !== input.seq - 1) return false;
    const finished = REPEATABLE.has(kind) ? previous.status !== 'recorded' : SPENT.has(previous.status);
    if (!finished) return false;
    // The bound holds where actions are written down, whatever decided to send this one.
    const reverted = (await revertedActionCounts(trx, orderId))[kind] ?? 0;
    // An attester settle is the exception: nobody else can settle there (see decideOpen).
    if (kind !== 'settle' && revertsExhausted(reverted)) return false;
  }
  if (kind === 'deposit') return true;
  return !(await hasLiveAction(trx, orderId, kind === 'refund' ? RELEASE_ACTIONS : ['refund']));
}

/** Whether the order has a live action of one of `kinds` (servingActions). */
export async function hasLiveAction(
  db: Executor,
  orderId: string,
  kinds: readonly ChainActionKind[],
): Promise<boolean> {
  return (await servingActions(db, orderId, kinds, true).limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Writes the order's proof message as the chains show it (the caller emits the order's event in the same unit of
 * work); false when the order is no longer in `status`.
 */
export async function recordOrderSettlement(
  db: Executor,
  id: string,
  status: OrderStatus,
  settlement: OrderSettlement,
  now: Date,
  actor: string,
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({
      settlement_method: settlement.method,
      settlement_message_id: settlement.messageId,
      settlement_status: settlement.status,
      settlement_message_tx: settlement.txHash,
      settlement_sent_at: settlement.sentAt?.getTime() ?? null,
      settlement_delivered_at: settlement.deliveredAt?.getTime() ?? null,
      updated_at: now.getTime(),
      updated_by: actor,
    })
    .where('id', '=', id)
    .where('status', '=', status)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Keeps the attestation signed for the order's fill (attester chains), unless one is kept already (the signature
 * is deterministic, so the first one stands); true only for the writer that stored it.
 */
export async function recordFillAttestation(
  db: Executor,
  id: string,
  attestation: FillAttestation,
  now: Date,
  actor: string,
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({
      fill_attestation: JSON.stringify({ ...attestation, fillTime: attestation.fillTime.toString() }),
      updated_at: now.getTime(),
      updated_by: actor,
    })
    .where('id', '=', id)
    .where('fill_attestation', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
