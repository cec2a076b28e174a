import type { Kysely } from 'kysely';
import { type Hex, keccak256, parseTransaction } from 'viem';
import {
  actionFeeCappedAt,
  actionWaitingSince,
  attemptActionIndex,
  chainActionTxColumns,
  withColumns,
} from './ledger-columns.ts';

/**
 * Every signed transaction of a chain action, not only the latest: a replacement (same nonce, higher fees)
 * leaves the earlier one able to be mined, so the action must keep watching every hash it ever broadcast.
 * Fees are decimal strings in wei; `attempt` orders the transactions of one action (0 = the first).
 *
 * `chain_actions` gains `waiting_since` (when the current attempt started waiting to be mined; the
 * replacement timer) and `fee_capped_at` (when the action first could not be raised because of the chain's
 * fee cap, so that is reported once).
 */
export const chainActionTxsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await withColumns(db.schema.createTable('chain_action_txs'), chainActionTxColumns).execute();
    await attemptActionIndex(db.schema).execute();
    await db.schema
      .alterTable('chain_actions')
      .addColumn(...actionWaitingSince)
      .execute();
    await db.schema
      .alterTable('chain_actions')
      .addColumn(...actionFeeCappedAt)
      .execute();

    const existing = (await (db as Kysely<LegacyDatabase>)
      .selectFrom('chain_actions')
      .select(['id', 'tx_hash', 'raw_tx', 'status', 'created_at', 'updated_at'])
      .execute()) as LegacyAction[];
    for (const action of existing) {
      const tx = parseTransaction(action.raw_tx as Hex);
      await (db as Kysely<LegacyDatabase>)
        .insertInto('chain_action_txs')
        .values({
          tx_hash: keccak256(action.raw_tx as Hex),
          action_id: action.id,
          attempt: 0,
          raw_tx: action.raw_tx,
          max_fee_per_gas: String(tx.maxFeePerGas ?? tx.gasPrice ?? 0n),
          max_priority_fee_per_gas: String(tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n),
          status: action.status === 'recorded' ? 'sent' : action.status,
          created_at: Number(action.created_at),
          broadcast_at: Number(action.updated_at),
        })
        .execute();
    }
  },
};

interface LegacyAction {
  id: string;
  tx_hash: string;
  raw_tx: string;
  status: string;
  created_at: number;
  updated_at: number;
}

/** The two tables as this migration sees them (the application schema may move on later). */
interface LegacyDatabase {
  chain_actions: LegacyAction;
  chain_action_txs: {
    tx_hash: string;
    action_id: string;
    attempt: number;
    raw_tx: string;
    max_fee_per_gas: string;
    max_priority_fee_per_gas: string;
    status: string;
    created_at: number;
    broadcast_at: number | null;
  };
}
