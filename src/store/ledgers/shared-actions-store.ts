import type { TxAction } from '../../chains/transactions/tx-ledger.ts';
import type { OrderStatus } from '../../domain/lifecycle.ts';
import type { Executor } from '../engine/db-types.ts';
import { servingActions } from './serving-actions.ts';
import { type ChainActionKind, hasLiveAction, mayRecord } from './settlement-store.ts';
import { toTxAction } from './tx-ledger-store.ts';

/**
 * Chain actions that serve several orders (migration 0021): the worker's one prove(orders) for the orders of a
 * route that all need its fallback proof. The action is its first order's (`chain_actions.order_id`); the others
 * are linked to it in the same ledger write that records it, before it is broadcast, so after a crash each of them
 * still sees its proof in flight, mined or spent.
 */

const LIVE: ReadonlySet<TxAction['status']> = new Set(['recorded', 'confirmed']);

/**
 * The newest action of `kind` serving the order: its own (the highest seq) or one of another order it is linked to,
 * whichever was recorded last. Two indexed halves, never a scan of every action of `kind`: the order's own actions
 * by (order_id, kind), and its links by (order_id, kind) joined to the actions they name by (order_id, kind, seq).
 * It runs for every observed order every pass, and inside mayRecordShared's ledger write.
 */
export async function findServingAction(
  db: Executor,
  orderId: string,
  kind: ChainActionKind,
): Promise<TxAction | null> {
  const row = await servingActions(db, orderId, [kind], false)
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toTxAction(row) : null;
}

/**
 * Inside the ledger write of `leader`'s action of `kind` (seq `seq`): whether it may be recorded for the leader
 * (mayRecord) and for every one of `others`, each still in `expectStatus` with no action of `kind` of its own or
 * linked (in flight, mined or spent: such an order follows that one); then links them to it. All or nothing: one
 * order that moved on refuses the whole action, and the next pass sends for the rest. On PostgreSQL the orders'
 * rows are locked in id order, so two workers cannot link one order twice or deadlock.
 */
export async function mayRecordShared(
  trx: Executor,
  dialect: 'sqlite' | 'postgres',
  input: {
    leader: string;
    others: readonly string[];
    kind: ChainActionKind;
    seq: number;
    expectStatus: OrderStatus;
  },
): Promise<boolean> {
  const { leader, others, kind, seq, expectStatus } = input;
  const ids = [...new Set([leader, ...others])].sort();
  let rows = trx.selectFrom('orders').select(['id', 'status']).where('id', 'in', ids).orderBy('id');
  if (dialect === 'postgres') rows = rows.forUpdate();
  const statuses = new Map((await rows.execute()).map((r) => [r.id, r.status]));
  if (ids.some((id) => statuses.get(id) !== expectStatus)) return false;
  if (!(await mayRecord(trx, dialect, { orderId: leader, kind, seq, expectStatus }))) return false;
  for (const id of ids) {
    // Another order's action already serving one of them (in flight or mined): it follows that one.
    const serving = await findServingAction(trx, id, kind);
    if (serving && LIVE.has(serving.status) && !(id === leader && serving.subject === leader)) return false;
    if (id === leader) continue;
    if (await hasLiveAction(trx, id, ['refund'])) return false;
  }
  if (others.length > 0) {
    await trx
      .insertInto('chain_action_orders')
      .values(others.map((id) => ({ action_order_id: leader, kind, seq, order_id: id })))
      .execute();
  }
  return true;
}

/**
 * The other orders of the proof message `messageId` that one commit or execute of it would serve too: those the
 * message proves (its ProofSent rows, one per order hash, so an order the worker has not yet seen proven counts),
 * whose newest message it is or is not yet written down, still in `status`, with no action of `kind` in flight or
 * mined, their own or linked. The leader's action is linked to them (mayRecordShared, which checks them again under
 * the lock), so the message is committed and executed once.
 */
export async function messageOrdersToServe(
  db: Executor,
  input: { messageId: string; leader: string; kind: ChainActionKind; status: OrderStatus },
): Promise<string[]> {
  const rows = await db
    .selectFrom('proof_sent as p')
    .innerJoin('orders as o', 'o.blockchain_order_id', 'p.order_hash')
    .select('o.id')
    .distinct()
    .where('p.guid', '=', input.messageId)
    .where('o.id', '!=', input.leader)
    .where('o.status', '=', input.status)
    .where((eb) =>
      eb.or([eb('o.settlement_message_id', 'is', null), eb('o.settlement_message_id', '=', input.messageId)]),
    )
    .execute();
  const free: string[] = [];
  for (const { id } of rows) {
    const serving = await findServingAction(db, id, input.kind);
    if (!serving || !LIVE.has(serving.status)) free.push(id);
  }
  return free.sort();
}

/** The orders each of `actions` serves besides its own (none for most). */
export async function linkedOrders(
  db: Executor,
  actions: readonly Pick<TxAction, 'id' | 'subject' | 'kind' | 'seq'>[],
): Promise<Map<string, string[]>> {
  const served = new Map<string, string[]>();
  if (actions.length === 0) return served;
  const rows = await db
    .selectFrom('chain_action_orders')
    .selectAll()
    .where(
      'action_order_id',
      'in',
      actions.map((a) => a.subject),
    )
    .execute();
  for (const action of actions) {
    const orders = rows
      .filter(
        (r) => r.action_order_id === action.subject && r.kind === action.kind && Number(r.seq) === action.seq,
      )
      .map((r) => r.order_id);
    if (orders.length > 0) served.set(action.id, orders);
  }
  return served;
}
