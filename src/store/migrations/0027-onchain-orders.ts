import type { Kysely } from 'kysely';

/**
 * Orders opened on chain: each order's `source`, 'order' through the API, 'onchain' when a wallet opened it on an
 * escrow (src/settlement/onchain-order-index.ts).
 */
export const onchainOrdersMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('orders')
      .addColumn('source', 'text', (c) => c.notNull().defaultTo('order'))
      .execute();
  },
};
