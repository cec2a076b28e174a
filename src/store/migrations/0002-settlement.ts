import type { Kysely } from 'kysely';

/**
 * Settlement bookkeeping. `chain_actions` is the write-ahead record of every transaction the worker sends:
 * the signed bytes are stored before broadcast, so after a crash the very same transaction (same nonce,
 * same hash) is re-sent instead of a new one. `chain_nonces` hands out nonces across worker instances.
 */
export const settlementMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('orders').addColumn('lease_owner', 'text').execute();
    await db.schema.alterTable('orders').addColumn('lease_expires_at', 'bigint').execute();
    await db.schema
      .alterTable('orders')
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('orders')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('orders_work').on('orders').columns(['status', 'next_attempt_at']).execute();

    await db.schema
      .createTable('chain_actions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('from_address', 'text', (c) => c.notNull())
      .addColumn('nonce', 'bigint', (c) => c.notNull())
      .addColumn('tx_hash', 'text', (c) => c.notNull())
      .addColumn('raw_tx', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // One action of each kind per order: the database itself refuses a second deposit, settle or refund.
    await db.schema
      .createIndex('chain_actions_order_kind')
      .on('chain_actions')
      .columns(['order_id', 'kind'])
      .unique()
      .execute();

    await db.schema
      .createTable('chain_nonces')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('next_nonce', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('chain_nonces_pk', ['chain', 'address'])
      .execute();
  },
};
