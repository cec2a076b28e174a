import type { Kysely, Selectable, Transaction } from 'kysely';
import { type Hex, keccak256 } from 'viem';
import type {
  NewTxAction,
  SignAt,
  TxAction,
  TxActionStatus,
  TxAttempt,
  TxAttemptStatus,
  TxLedger,
  TxPurpose,
} from '../../chains/transactions/tx-ledger.ts';
import { newId } from '../../domain/ids.ts';
import type { Dialect } from '../engine/database.ts';
import type { ChainActionsTable, ChainActionTxsTable, ChainNoncesTable } from '../engine/schema.ts';
import { NonceRaceError, storeError, UniqueViolationError } from '../engine/store-errors.ts';

/** The three tables a ledger needs, in Ferry's database or in an LP journal file alike. */
export interface LedgerTables {
  chain_actions: ChainActionsTable;
  chain_action_txs: ChainActionTxsTable;
  chain_nonces: ChainNoncesTable;
}

type LedgerDb = Kysely<LedgerTables>;

/** The database a ledger writes to: Ferry's (FerryDatabase fits) or a journal's. */
export interface LedgerDatabase<DB extends LedgerTables> {
  readonly db: Kysely<DB>;
  readonly dialect: Dialect;
  transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
}

/** Runs in the ledger's write transaction before a nonce is taken; false: nothing is written or signed. */
export type LedgerGuard<DB> = (trx: Transaction<DB>) => Promise<boolean>;

/**
 * The newest action of `kind` for a subject (the highest `seq`: a retry after a revert supersedes it), in Ferry's
 * database or a journal alike.
 */
export async function latestLedgerAction<DB extends LedgerTables>(
  executor: Kysely<DB>,
  subject: string,
  kind: string,
): Promise<TxAction | null> {
  const row = await (executor as unknown as LedgerDb)
    .selectFrom('chain_actions')
    .selectAll()
    .where('order_id', '=', subject)
    .where('kind', '=', kind)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toTxAction(row) : null;
}

export function toTxAction(row: Selectable<ChainActionsTable>): TxAction {
  return {
    id: row.id,
    subject: row.order_id,
    kind: row.kind,
    seq: Number(row.seq),
    chain: row.chain,
    from: row.from_address as Hex,
    nonce: Number(row.nonce),
    status: row.status as TxActionStatus,
    txHash: row.tx_hash as Hex,
    waitingSince: row.waiting_since === null ? null : Number(row.waiting_since),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toTxAttempt(row: Selectable<ChainActionTxsTable>): TxAttempt {
  return {
    txHash: row.tx_hash as Hex,
    actionId: row.action_id,
    attempt: Number(row.attempt),
    rawTx: row.raw_tx as Hex,
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    status: row.status as TxAttemptStatus,
    purpose: row.purpose as TxPurpose,
    createdAt: Number(row.created_at),
  };
}

/**
 * Hands out the next nonce of `address` on `chain`. The row update serialises concurrent writers; the chain's
 * own count wins when it is ahead (transactions sent by other tools with the same key).
 */
async function allocateNonce(db: LedgerDb, chain: string, address: string, chainNonce: number) {
  const row = await db
    .selectFrom('chain_nonces')
    .select('next_nonce')
    .where('chain', '=', chain)
    .where('address', '=', address)
    .executeTakeFirst();
  if (!row) {
    await db
      .insertInto('chain_nonces')
      .values({ chain, address, next_nonce: chainNonce + 1 })
      .execute();
    return chainNonce;
  }
  const nonce = Math.max(Number(row.next_nonce), chainNonce);
  const result = await db
    .updateTable('chain_nonces')
    .set({ next_nonce: nonce + 1 })
    .where('chain', '=', chain)
    .where('address', '=', address)
    .where('next_nonce', '=', row.next_nonce)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new NonceRaceError('nonce allocation raced; retry');
  return nonce;
}

type SignedTx = Awaited<ReturnType<SignAt>>;

/** The action's row and its first transaction's, as `record` writes them. */
function firstRows(
  draft: NewTxAction,
  nonce: number,
  signed: SignedTx,
  purpose: TxPurpose | undefined,
): { row: Selectable<ChainActionsTable>; attempt: Selectable<ChainActionTxsTable> } {
  const txHash = keccak256(signed.rawTx);
  const row: Selectable<ChainActionsTable> = {
    id: newId('act', new Date(draft.at)),
    order_id: draft.subject,
    kind: draft.kind,
    seq: draft.seq,
    chain: draft.chain,
    from_address: draft.from,
    nonce,
    tx_hash: txHash,
    raw_tx: signed.rawTx,
    status: 'recorded',
    created_at: draft.at,
    updated_at: draft.at,
    waiting_since: draft.at,
    fee_capped_at: null,
  };
  const attempt: Selectable<ChainActionTxsTable> = {
    tx_hash: txHash,
    action_id: row.id,
    attempt: 0,
    raw_tx: signed.rawTx,
    max_fee_per_gas: signed.maxFeePerGas.toString(),
    max_priority_fee_per_gas: signed.maxPriorityFeePerGas.toString(),
    status: 'recorded',
    purpose: purpose ?? 'call',
    created_at: draft.at,
    broadcast_at: null,
  };
  return { row, attempt };
}

type RecordInput<DB> = Parameters<TxLedger<LedgerGuard<DB>>['record']>[0];

/** TxLedger.record over `database`: guard, nonce, signature and the two rows in one write. */
function recordAction<DB extends LedgerTables>(
  database: LedgerDatabase<DB>,
  { action: draft, chainNonce, nonce: fixed, guard, sign, purpose }: RecordInput<DB>,
): Promise<{ action: TxAction; attempt: TxAttempt } | null> {
  // Another writer recorded this action (subject, kind, seq) first: refused, like a guard that says no.
  const refusedIfTaken = (error: unknown) => {
    const typed = storeError(error);
    if (typed instanceof UniqueViolationError) return null;
    throw typed;
  };
  return database
    .transaction(async (trx) => {
      if (!(await guard(trx))) return null;
      const tx = trx as unknown as LedgerDb;
      const nonce = fixed ?? (await allocateNonce(tx, draft.chain, draft.from, chainNonce));
      const { row, attempt } = firstRows(draft, nonce, await sign(nonce), purpose);
      await tx.insertInto('chain_actions').values(row).execute();
      await tx.insertInto('chain_action_txs').values(attempt).execute();
      return { action: toTxAction(row), attempt: toTxAttempt(attempt) };
    })
    .catch(refusedIfTaken);
}

/** TxLedger.recordReplacement over `database`. */
function recordReplacement<DB extends LedgerTables>(
  database: LedgerDatabase<DB>,
  attempt: TxAttempt,
  previousAttempt: number,
): Promise<boolean> {
  return database.transaction(async (trx) => {
    const tx = trx as unknown as LedgerDb;
    let lock = tx.selectFrom('chain_actions').select('status').where('id', '=', attempt.actionId);
    if (database.dialect === 'postgres') lock = lock.forUpdate();
    const action = await lock.executeTakeFirst();
    if (action?.status !== 'recorded') return false;
    const newest = await tx
      .selectFrom('chain_action_txs')
      .select((eb) => eb.fn.max('attempt').as('attempt'))
      .where('action_id', '=', attempt.actionId)
      .executeTakeFirst();
    if (Number(newest?.attempt ?? -1) !== previousAttempt) return false;
    await tx
      .insertInto('chain_action_txs')
      .values({
        tx_hash: attempt.txHash,
        action_id: attempt.actionId,
        attempt: attempt.attempt,
        raw_tx: attempt.rawTx,
        max_fee_per_gas: attempt.maxFeePerGas.toString(),
        max_priority_fee_per_gas: attempt.maxPriorityFeePerGas.toString(),
        status: 'recorded',
        purpose: attempt.purpose,
        created_at: attempt.createdAt,
        broadcast_at: null,
      })
      .execute();
    await tx
      .updateTable('chain_actions')
      .set({
        tx_hash: attempt.txHash,
        raw_tx: attempt.rawTx,
        waiting_since: attempt.createdAt,
        updated_at: attempt.createdAt,
      })
      .where('id', '=', attempt.actionId)
      .execute();
    return true;
  });
}

/** TxLedger.finish over `db`: the mined transaction's outcome on it and on its action. */
async function finishAction(
  db: LedgerDb,
  actionId: string,
  mined: { readonly txHash: Hex; readonly status: 'confirmed' | 'reverted' | 'cancelled' },
  now: number,
): Promise<void> {
  const attemptStatus = mined.status === 'reverted' ? 'reverted' : 'confirmed';
  await db
    .updateTable('chain_action_txs')
    .set({ status: attemptStatus })
    .where('tx_hash', '=', mined.txHash)
    .execute();
  const raw = await db
    .selectFrom('chain_action_txs')
    .select('raw_tx')
    .where('tx_hash', '=', mined.txHash)
    .executeTakeFirst();
  await db
    .updateTable('chain_actions')
    .set({
      status: mined.status,
      tx_hash: mined.txHash,
      ...(raw ? { raw_tx: raw.raw_tx } : {}),
      updated_at: now,
    })
    .where('id', '=', actionId)
    .where('status', '=', 'recorded')
    .execute();
}

/** The transaction client's ledger (src/chains/transactions/tx-ledger.ts) over the ledger tables of `database`. */
export function createStoreTxLedger<DB extends LedgerTables>(
  database: LedgerDatabase<DB>,
): TxLedger<LedgerGuard<DB>> {
  const db = database.db as unknown as LedgerDb;

  return {
    record: (input) => recordAction(database, input),

    async attempts(actionId) {
      const rows = await db
        .selectFrom('chain_action_txs')
        .selectAll()
        .where('action_id', '=', actionId)
        .orderBy('attempt')
        .execute();
      return rows.map(toTxAttempt);
    },

    recordReplacement: (attempt, previousAttempt) => recordReplacement(database, attempt, previousAttempt),

    async setAttemptStatus(txHash, status, now) {
      await db
        .updateTable('chain_action_txs')
        .set(status === 'mined' ? { status } : { status, broadcast_at: now })
        .where('tx_hash', '=', txHash)
        .execute();
    },

    async restartWait(actionId, txHash, now) {
      await db
        .updateTable('chain_action_txs')
        .set({ status: 'sent' })
        .where('tx_hash', '=', txHash)
        .execute();
      await db
        .updateTable('chain_actions')
        .set({ waiting_since: now, updated_at: now })
        .where('id', '=', actionId)
        .execute();
    },

    finish: (actionId, mined, now) => finishAction(db, actionId, mined, now),

    async markFeeCapped(actionId, now) {
      const result = await db
        .updateTable('chain_actions')
        .set({ fee_capped_at: now })
        .where('id', '=', actionId)
        .where('fee_capped_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async markNonceConflict(actionId, now) {
      const result = await db
        .updateTable('chain_actions')
        .set({ status: 'nonce-conflict', updated_at: now })
        .where('id', '=', actionId)
        .where('status', '=', 'recorded')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async unfinished(chain, from) {
      const rows = await db
        .selectFrom('chain_actions')
        .selectAll()
        .where('status', '=', 'recorded')
        .where('chain', '=', chain)
        .where('from_address', '=', from)
        .orderBy('nonce')
        .execute();
      return rows.map(toTxAction);
    },
  };
}
