import type { Kysely } from 'kysely';

/**
 * Orders by their proof message: the worker once asked, for every commit and execute it was about to send, whether
 * another order of the same message (a filler's batch) already had one; it now finds them from the message's
 * ProofSent rows (migration 0024). Listings by message still use this index.
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
