import type { Kysely } from 'kysely';

/**
 * Open filling: an order's exclusivity deadline (from its signed terms; after it anyone may fill), when the worker
 * saw it lapse unfilled (and told the liquidity providers), and the filler of record (whoever filled, whom the
 * escrow pays); all null on orders written before.
 */
export const openFillingMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('orders').addColumn('exclusivity_deadline', 'bigint').execute();
    await db.schema.alterTable('orders').addColumn('filled_by', 'text').execute();
    await db.schema.alterTable('orders').addColumn('exclusivity_lapsed_at', 'bigint').execute();
  },
};
