import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import type { OrderChange } from '../domain/lifecycle.ts';
import { publicOrderView } from '../domain/public-views.ts';
import type { Order, OrderSettlement } from '../domain/records.ts';
import type { SettlementObservation } from '../domain/settlement-observation.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import type { Executor } from '../store/engine/db-types.ts';
import {
  type ChainActionKind,
  markExclusivityLapsed,
  noteOrderProblem,
  recordOrderSettlement,
  transitionOrder,
} from '../store/ledgers/settlement-store.ts';
import { findOrder } from '../store/tables/orders-store.ts';

/** Who the settlement worker's writes are by (the orders' `updatedBy`). */
export const SETTLEMENT_ACTOR = 'settlement-worker';

/** What writing on an order (its move, a note) needs. */
export type OrderWriteDeps = {
  readonly database: FerryDatabase;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly metrics?: FerryMetrics;
};

/**
 * The relayer stopped sending an action that kept reverting on chain: the reason is written on the order once
 * (logged at error and counted); the order still follows the chains, and nothing more is sent for it.
 */
export async function noteGivenUp(
  deps: OrderWriteDeps,
  order: Order,
  kind: ChainActionKind,
  reason: string,
): Promise<void> {
  const now = deps.clock.now();
  if (await noteOrderProblem(deps.database.db, order.id, order.status, reason, now, SETTLEMENT_ACTOR)) {
    deps.log.error({ orderId: order.id, kind, reason }, `${kind} gave up after reverting on chain`);
  }
}

/**
 * The deposited order's exclusivity lapsed unfilled: it is written on the order, once, with the
 * `order.exclusivityLapsed` event that tells liquidity providers any of them may now fill it.
 */
export async function announceOpen(deps: OrderWriteDeps, order: Order): Promise<boolean> {
  const announced = await writeWithEvent(deps, order.id, 'order.exclusivityLapsed', (trx, now) =>
    markExclusivityLapsed(trx, order.id, now, SETTLEMENT_ACTOR),
  );
  if (announced)
    deps.log.info({ orderId: order.id }, "the quoted filler's exclusivity lapsed; open to any filler");
  return announced !== null;
}

/**
 * One unit of work on order `id`: `write` (false when another writer changed the order first), then the order's
 * `type` event with its public view as it now reads; the written order, or null.
 */
async function writeWithEvent(
  deps: OrderWriteDeps,
  id: string,
  type: 'order.updated' | 'order.exclusivityLapsed',
  write: (trx: Executor, now: Date) => Promise<boolean>,
): Promise<Order | null> {
  const now = deps.clock.now();
  return deps.database.transaction(async (trx, uow) => {
    if (!(await write(trx, now))) return null;
    const updated = await findOrder(trx, id);
    if (!updated) return null;
    uow.emit({
      type,
      occurredAt: now,
      data: publicOrderView(updated),
      accountIds: [updated.moneyMoverAccountId, updated.liquidityProviderAccountId],
    });
    return updated;
  });
}

/** Counts a settlement message reaching a status, and a delivery's wait since the fill. */
function settlementMetrics(
  metrics: FerryMetrics | undefined,
  settlement: OrderSettlement,
  obs: SettlementObservation,
) {
  metrics?.settlementMessages.inc({ status: settlement.status });
  if (settlement.status === 'delivered' && settlement.deliveredAt && obs.fill) {
    const seconds = settlement.deliveredAt.getTime() / 1000 - Number(obs.fill.blockTimestamp);
    metrics?.fillToDelivery.observe(Math.max(0, seconds));
  }
}

/**
 * Moves the order (`change`), writes its proof message (`settlement`), or both, in one unit of work with the
 * order's event; false when another writer moved it first.
 */
export async function moveOrder(
  deps: OrderWriteDeps,
  order: Order,
  change: OrderChange | null,
  settlement: OrderSettlement | null,
  obs: SettlementObservation,
): Promise<boolean> {
  const moved = await writeWithEvent(deps, order.id, 'order.updated', async (trx, now) => {
    if (
      settlement &&
      !(await recordOrderSettlement(trx, order.id, order.status, settlement, now, SETTLEMENT_ACTOR))
    )
      return false;
    return !change || transitionOrder(trx, order.id, order.status, change, now, SETTLEMENT_ACTOR);
  });
  if (moved && change) {
    deps.log.info({ orderId: order.id, from: order.status, to: change.status }, 'order moved');
  }
  if (moved && settlement && settlement.status !== order.settlement?.status) {
    settlementMetrics(deps.metrics, settlement, obs);
  }
  return moved !== null;
}
