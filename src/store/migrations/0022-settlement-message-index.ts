import type { Kysely } from 'kysely';

/**
 * Orders by their proof message: the worker asks, for every commit and execute it is about to send, whether another
 * order of the same message (a filler's batch) already has one (settlement-store.ts messageActionOfAnother). Without
 * the index that join reads every order.
 */
export const settlementMessageIndexMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('orders_settlement_message')
      .on('orders')
      .column('settlement_message_id')
      .execute();
  },
};
