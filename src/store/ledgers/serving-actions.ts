import type { TxAction } from '../../chains/transactions/tx-ledger.ts';
import type { RelayerActionKind as ChainActionKind } from '../../domain/settlement-decision-type.ts';
import type { Executor } from '../engine/db-types.ts';

/** Finished without effect on chain: a new action of the kind may follow, and it no longer blocks its rival. */
export const SPENT: ReadonlySet<TxAction['status']> = new Set(['reverted', 'cancelled', 'nonce-conflict']);

/**
 * The order's actions of `kinds`: its own and those of another order that serve it too (a shared prove, linked in
 * chain_action_orders), each half found through an index, never a scan of every action of a kind. `live` keeps
 * those that may still take effect (recorded, or confirmed on chain): the one rule for "an action is live for this
 * order", for the guards and the refund-beats-fill condition alike.
 */
export function servingActions(
  db: Executor,
  orderId: string,
  kinds: readonly ChainActionKind[],
  live: boolean,
) {
  let own = db.selectFrom('chain_actions as a').selectAll('a').where('a.order_id', '=', orderId);
  let linked = db
    .selectFrom('chain_action_orders as l')
    .innerJoin('chain_actions as a', (join) =>
      join
        .onRef('a.order_id', '=', 'l.action_order_id')
        .onRef('a.kind', '=', 'l.kind')
        .onRef('a.seq', '=', 'l.seq'),
    )
    .selectAll('a')
    .where('l.order_id', '=', orderId);
  own = own.where('a.kind', 'in', kinds);
  linked = linked.where('l.kind', 'in', kinds);
  if (live) {
    own = own.where('a.status', 'not in', [...SPENT]);
    linked = linked.where('a.status', 'not in', [...SPENT]);
  }
  return own.unionAll(linked);
}
