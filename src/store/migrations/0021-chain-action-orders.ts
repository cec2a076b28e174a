import type { Kysely } from 'kysely';

/**
 * `chain_action_orders`: the orders a chain action serves besides its own (`chain_actions.order_id`), keyed by the
 * action's own order, kind and seq (unique, and known before the action's row exists: the rows are written by the
 * guard of the ledger write that records the action, before it is broadcast). The worker's fallback prove of
 * several orders on one route is one prove(orders): each of them sees it in flight, mined or reverted through here.
 */
export const chainActionOrdersMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('chain_action_orders')
      .addColumn('action_order_id', 'text', (c) => c.notNull().references('orders.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
      .addPrimaryKeyConstraint('chain_action_orders_pk', ['action_order_id', 'kind', 'seq', 'order_id'])
      .execute();
    await db.schema
      .createIndex('chain_action_orders_order')
      .on('chain_action_orders')
      .columns(['order_id', 'kind'])
      .execute();
  },
};
