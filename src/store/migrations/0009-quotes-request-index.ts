import type { Kysely } from 'kysely';

/**
 * Accepting a quote declines the other active quotes of its request (`quote_request_id = ? and status = 'active'
 * and end_time > ?`). With only (quote_request_id, status) and (status, end_time) to choose from, SQLite took the
 * second: a range over every active quote of every request, which grew with the LPs' traffic (an accept cost
 * ~20,000 rows once an RFQ market had that many live quotes). One index covering all three columns wins on both
 * databases, and replaces the two-column one.
 */
export const quotesRequestIndexMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('quotes_request_status_end')
      .on('quotes')
      .columns(['quote_request_id', 'status', 'end_time'])
      .execute();
    await db.schema.dropIndex('quotes_request').execute();
  },
};
