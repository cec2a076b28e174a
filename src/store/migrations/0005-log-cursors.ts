import type { Kysely } from 'kysely';

/**
 * Log scans. `log_cursors` holds, per chain and per scanned contract event, the next block to read and the hash
 * of the last block read, so a restart resumes where the previous process stopped instead of scanning from the
 * start block again. `chain_fills` holds the Filled events read so far (only blocks at the chain's confirmations
 * depth are ever read), and answers "was this order filled?" without an RPC call.
 */
export const logCursorsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('log_cursors')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('next_block', 'bigint', (c) => c.notNull())
      .addColumn('last_block_hash', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('log_cursors_pk', ['chain', 'scope'])
      .execute();

    await db.schema
      .createTable('chain_fills')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('tx_hash', 'text', (c) => c.notNull())
      .addColumn('log_index', 'integer', (c) => c.notNull())
      .addColumn('order_hash', 'text', (c) => c.notNull())
      .addColumn('filler', 'text', (c) => c.notNull())
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_hash', 'text', (c) => c.notNull())
      .addColumn('block_timestamp', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('chain_fills_pk', ['chain', 'tx_hash', 'log_index'])
      .execute();
    await db.schema
      .createIndex('chain_fills_order')
      .on('chain_fills')
      .columns(['chain', 'order_hash', 'filler'])
      .execute();
  },
};
