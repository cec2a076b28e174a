import type { Kysely } from 'kysely';

/**
 * The expiry sweeper asks every second for open requests and active quotes past their end. Without these
 * indexes each sweep read every row of its status (all active quotes: a whole-table scan), which grew with
 * the history and stalled the event loop on the embedded database.
 */
export const expiryIndexesMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('quote_requests_status_expires')
      .on('quote_requests')
      .columns(['status', 'expires_at'])
      .execute();
    await db.schema.createIndex('quotes_status_end').on('quotes').columns(['status', 'end_time']).execute();
  },
};
