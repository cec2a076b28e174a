import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../engine/database.ts';

/**
 * The explorer's search and order view.
 * - `orders.filler`, `open_deadline`, `fill_deadline`: the liquidity provider's fill address and the two deadlines
 *   (unix seconds) of the signed terms, copied from the quote's typed data so the public view (built from the order
 *   row alone, also by the settlement worker for the stream) can show them. Existing orders are backfilled from
 *   their quote; every order has one.
 * - Indexes for looking an order up by any of its transaction hashes (the blockchain order id is already unique),
 *   for search by fill address, and for the stats' window over completed orders.
 */
export function explorerSearchMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('orders').addColumn('filler', 'text').execute();
      await db.schema.alterTable('orders').addColumn('open_deadline', 'bigint').execute();
      await db.schema.alterTable('orders').addColumn('fill_deadline', 'bigint').execute();
      if (dialect === 'postgres') {
        await sql`update orders set
            filler = (q.typed_data::json -> 'message' ->> 'filler'),
            open_deadline = (q.typed_data::json -> 'message' ->> 'openDeadline')::bigint,
            fill_deadline = (q.typed_data::json -> 'message' ->> 'fillDeadline')::bigint
          from quotes q where q.id = orders.quote_id`.execute(db);
      } else {
        await sql`update orders set
            filler = (select json_extract(q.typed_data, '$.message.filler') from quotes q where q.id = orders.quote_id),
            open_deadline = (select cast(json_extract(q.typed_data, '$.message.openDeadline') as integer)
              from quotes q where q.id = orders.quote_id),
            fill_deadline = (select cast(json_extract(q.typed_data, '$.message.fillDeadline') as integer)
              from quotes q where q.id = orders.quote_id)`.execute(db);
      }
      for (const column of ['src_chain_tx_hash', 'dst_chain_tx_hash', 'settlement_tx_hash'] as const) {
        await db.schema.createIndex(`orders_${column}`).on('orders').column(column).execute();
      }
      await db.schema.createIndex('orders_filler').on('orders').columns(['filler', 'created_at']).execute();
      await db.schema
        .createIndex('orders_status_completed')
        .on('orders')
        .columns(['status', 'completed_at'])
        .execute();
    },
  };
}
