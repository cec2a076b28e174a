import type { Kysely } from 'kysely';
import { type Hex, keccak256, parseTransaction } from 'viem';

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
    await db.schema
      .createTable('chain_action_txs')
      .addColumn('tx_hash', 'text', (c) => c.primaryKey())
      .addColumn('action_id', 'text', (c) => c.notNull().references('chain_actions.id'))
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('raw_tx', 'text', (c) => c.notNull())
      .addColumn('max_fee_per_gas', 'text', (c) => c.notNull())
      .addColumn('max_priority_fee_per_gas', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('broadcast_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('chain_action_txs_action_attempt')
      .on('chain_action_txs')
      .columns(['action_id', 'attempt'])
      .unique()
      .execute();
    await db.schema.alterTable('chain_actions').addColumn('waiting_since', 'bigint').execute();
    await db.schema.alterTable('chain_actions').addColumn('fee_capped_at', 'bigint').execute();

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
