import type { Kysely } from 'kysely';

/**
 * A new quote is checked against everything its liquidity provider has already promised (lp-commitments-store.ts):
 * its active quotes and its unfilled orders. These indexes keep that read to the LP's open rows, not its history.
 */
export const lpCommitmentsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('quotes_lp_status_end')
      .on('quotes')
      .columns(['liquidity_provider_id', 'status', 'end_time'])
      .execute();
    await db.schema
      .createIndex('orders_lp_status')
      .on('orders')
      .columns(['liquidity_provider_account_id', 'status'])
      .execute();
  },
};
