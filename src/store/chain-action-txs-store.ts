import type { Selectable } from 'kysely';
import type { Dialect } from './database.ts';
import type { Executor } from './db-types.ts';
import type { ChainActionTxsTable } from './schema.ts';

export type ChainActionTx = Selectable<ChainActionTxsTable>;

/** Every transaction signed for the action, oldest first. */
export async function listChainActionTxs(db: Executor, actionId: string): Promise<ChainActionTx[]> {
  return db
    .selectFrom('chain_action_txs')
    .selectAll()
    .where('action_id', '=', actionId)
    .orderBy('attempt')
    .execute();
}

export async function insertChainActionTx(db: Executor, tx: ChainActionTx): Promise<void> {
  await db.insertInto('chain_action_txs').values(tx).execute();
}

/**
 * Writes down a replacement as the action's newest attempt, unless another worker wrote one since
 * `previousAttempt` was read (false then). The action's row lock (PostgreSQL) orders concurrent replacers.
 */
export async function recordReplacementTx(
  db: Executor,
  dialect: Dialect,
  tx: ChainActionTx,
  previousAttempt: number,
): Promise<boolean> {
  let lock = db.selectFrom('chain_actions').select('status').where('id', '=', tx.action_id);
  if (dialect === 'postgres') lock = lock.forUpdate();
  const action = await lock.executeTakeFirst();
  if (action?.status !== 'recorded') return false;
  const newest = await db
    .selectFrom('chain_action_txs')
    .select((eb) => eb.fn.max('attempt').as('attempt'))
    .where('action_id', '=', tx.action_id)
    .executeTakeFirst();
  if (Number(newest?.attempt ?? -1) !== previousAttempt) return false;
  await insertChainActionTx(db, tx);
  await db
    .updateTable('chain_actions')
    .set({ tx_hash: tx.tx_hash, raw_tx: tx.raw_tx, waiting_since: tx.created_at, updated_at: tx.created_at })
    .where('id', '=', tx.action_id)
    .execute();
  return true;
}

/** Notes a broadcast's answer: `sent` (the node has it), `underpriced` (refused for its fees) or `mined`. */
export async function setChainActionTxStatus(
  db: Executor,
  txHash: string,
  status: 'sent' | 'underpriced' | 'mined',
  now: number,
): Promise<void> {
  await db
    .updateTable('chain_action_txs')
    .set(status === 'mined' ? { status } : { status, broadcast_at: now })
    .where('tx_hash', '=', txHash)
    .execute();
}

/** A mined transaction left the canonical chain: it waits again, and the replacement timer restarts. */
export async function markChainActionTxReorged(
  db: Executor,
  actionId: string,
  txHash: string,
  now: number,
): Promise<void> {
  await db.updateTable('chain_action_txs').set({ status: 'sent' }).where('tx_hash', '=', txHash).execute();
  await db
    .updateTable('chain_actions')
    .set({ waiting_since: now, updated_at: now })
    .where('id', '=', actionId)
    .execute();
}

/** The action's outcome, final: the mined transaction (at depth) becomes the action's hash. */
export async function finishChainAction(
  db: Executor,
  actionId: string,
  mined: { txHash: string; rawTx: string; status: 'confirmed' | 'reverted' },
  now: number,
): Promise<void> {
  await db
    .updateTable('chain_action_txs')
    .set({ status: mined.status })
    .where('tx_hash', '=', mined.txHash)
    .execute();
  await db
    .updateTable('chain_actions')
    .set({ status: mined.status, tx_hash: mined.txHash, raw_tx: mined.rawTx, updated_at: now })
    .where('id', '=', actionId)
    .where('status', '=', 'recorded')
    .execute();
}

/** First time the action hit the fee cap: true once per action, so it is logged and counted once. */
export async function markFeeCapped(db: Executor, actionId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('chain_actions')
    .set({ fee_capped_at: now })
    .where('id', '=', actionId)
    .where('fee_capped_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The action's nonce went to a transaction Ferry did not record: true only for the writer that marks it. */
export async function markNonceConflict(db: Executor, actionId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('chain_actions')
    .set({ status: 'nonce-conflict', updated_at: now })
    .where('id', '=', actionId)
    .where('status', '=', 'recorded')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
