import type { Kysely } from 'kysely';

/**
 * Open filling: an order's exclusivity deadline (from its signed terms; after it anyone may fill) and the filler of
 * record (whoever filled, whom the escrow pays), both null on orders written before.
 */
export const openFillingMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('orders').addColumn('exclusivity_deadline', 'bigint').execute();
    await db.schema.alterTable('orders').addColumn('filled_by', 'text').execute();
  },
};
