import type { Kysely } from 'kysely';

/**
 * The EIP-2612 permit a swap came with: the worker deposits with it (depositWithPermit), so it must outlive the
 * process that accepted the swap. Written in the order's own transaction; one per order at most.
 */
export const swapPermitsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('swap_permits')
      .addColumn('order_id', 'text', (c) => c.primaryKey().references('orders.id'))
      .addColumn('deadline', 'text', (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .execute();
  },
};
