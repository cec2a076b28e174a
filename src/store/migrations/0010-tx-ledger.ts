import type { Kysely } from 'kysely';

/**
 * The transaction ledger (src/store/tx-ledger-store.ts) drives transactions apart from order status:
 * - `chain_actions.seq`: a settle or refund that reverted may be tried again as a new action of the same order and
 *   kind, so the one-per-kind rule becomes one per (order, kind, seq); `seq` 0 is every action written before.
 * - `chain_action_txs.purpose`: `cancel` marks a zero-value self-transfer that spends an abandoned action's nonce.
 * - an index for the sender's unfinished actions, read on every worker pass to rebroadcast, cancel or fill gaps.
 */
export const txLedgerMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('chain_actions')
      .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.dropIndex('chain_actions_order_kind').execute();
    await db.schema
      .createIndex('chain_actions_order_kind_seq')
      .on('chain_actions')
      .columns(['order_id', 'kind', 'seq'])
      .unique()
      .execute();
    await db.schema
      .createIndex('chain_actions_sender_open')
      .on('chain_actions')
      .columns(['status', 'chain', 'from_address', 'nonce'])
      .execute();
    await db.schema
      .alterTable('chain_action_txs')
      .addColumn('purpose', 'text', (c) => c.notNull().defaultTo('call'))
      .execute();
  },
};
