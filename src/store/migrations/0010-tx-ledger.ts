import type { Kysely } from 'kysely';
import {
  actionSenderOpenIndex,
  actionSeq,
  actionSubjectKindSeqIndex,
  attemptPurpose,
} from './ledger-columns.ts';

/**
 * The transaction ledger (src/store/ledgers/tx-ledger-store.ts) drives transactions apart from order status:
 * - `chain_actions.seq`: a settle or refund that reverted may be tried again as a new action of the same order and
 *   kind, so the one-per-kind rule becomes one per (order, kind, seq); `seq` 0 is every action written before.
 * - `chain_action_txs.purpose`: `cancel` marks a zero-value self-transfer that spends an abandoned action's nonce.
 * - an index for the sender's unfinished actions, read on every worker pass to rebroadcast, cancel or fill gaps.
 */
export const txLedgerMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('chain_actions')
      .addColumn(...actionSeq)
      .execute();
    await db.schema.dropIndex('chain_actions_order_kind').execute();
    await actionSubjectKindSeqIndex(db.schema).execute();
    await actionSenderOpenIndex(db.schema).execute();
    await db.schema
      .alterTable('chain_action_txs')
      .addColumn(...attemptPurpose)
      .execute();
  },
};
