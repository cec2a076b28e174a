import type { Kysely } from 'kysely';
import { chainActionColumns, chainNoncesTable, withColumns } from './ledger-columns.ts';

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

    await withColumns(db.schema.createTable('chain_actions'), chainActionColumns(true)).execute();
    // One action of each kind per order: the database itself refuses a second deposit, settle or refund.
    await db.schema
      .createIndex('chain_actions_order_kind')
      .on('chain_actions')
      .columns(['order_id', 'kind'])
      .unique()
      .execute();

    await chainNoncesTable(db.schema).execute();
  },
};
