import type { Kysely } from 'kysely';

/**
 * Each order's protocol fee (input-token base units, a decimal string like the other amounts), copied from its
 * signed typed data so views and stats need not parse it. Orders from before the fee carried none: '0'.
 */
export const protocolFeeMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('orders')
      .addColumn('protocol_fee', 'text', (col) => col.notNull().defaultTo('0'))
      .execute();
  },
};
