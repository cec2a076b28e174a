import type { Selectable } from 'kysely';
import type { Address } from '../../domain/address.ts';
import type { ChainFill, LogCursor, ProofDeliveredLog, ProofSentLog } from '../../domain/chain-fill.ts';
import type { Executor } from '../engine/db-types.ts';
import type { ChainFillsTable } from '../engine/schema.ts';

export async function readLogCursor(db: Executor, chain: string, scope: string): Promise<LogCursor | null> {
  const row = await db
    .selectFrom('log_cursors')
    .select(['next_block', 'last_block_hash'])
    .where('chain', '=', chain)
    .where('scope', '=', scope)
    .executeTakeFirst();
  if (!row) return null;
  return {
    nextBlock: BigInt(row.next_block),
    lastBlockHash: (row.last_block_hash as `0x${string}` | null) ?? null,
  };
}

/**
 * Moves the cursor from `from` to `to` (compare-and-set: false, and nothing written, when another worker moved
 * it first; `from` null means no cursor exists yet). Call it in the transaction that stores the scanned range's
 * fills, so the cursor never runs ahead of what was stored.
 */
export async function moveLogCursor(
  db: Executor,
  key: { chain: string; scope: string },
  from: LogCursor | null,
  to: LogCursor,
  now: number,
): Promise<boolean> {
  const values = {
    next_block: Number(to.nextBlock),
    last_block_hash: to.lastBlockHash,
    updated_at: now,
  };
  if (from === null) {
    const inserted = await db
      .insertInto('log_cursors')
      .values({ chain: key.chain, scope: key.scope, ...values })
      .onConflict((oc) => oc.columns(['chain', 'scope']).doNothing())
      .executeTakeFirst();
    return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }
  const updated = await db
    .updateTable('log_cursors')
    .set(values)
    .where('chain', '=', key.chain)
    .where('scope', '=', key.scope)
    .where('next_block', '=', Number(from.nextBlock))
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n;
}

export async function insertChainFills(db: Executor, fills: readonly ChainFill[]): Promise<void> {
  if (fills.length === 0) return;
  await db
    .insertInto('chain_fills')
    .values(
      fills.map((f) => ({
        chain: f.chain,
        tx_hash: f.txHash.toLowerCase(),
        log_index: f.logIndex,
        order_hash: f.orderHash.toLowerCase(),
        filler: f.filler.toLowerCase(),
        recipient: f.recipient,
        token: f.token,
        amount: f.amount.toString(),
        block_number: Number(f.blockNumber),
        block_hash: f.blockHash.toLowerCase(),
        block_timestamp: f.blockTimestamp,
      })),
    )
    .onConflict((oc) => oc.columns(['chain', 'tx_hash', 'log_index']).doNothing())
    .execute();
}

/** Forgets the fills and proof messages read from `fromBlock` on: those blocks left the chain (a deep reorg). */
export async function deleteChainFillsFrom(db: Executor, chain: string, fromBlock: bigint): Promise<void> {
  for (const table of ['chain_fills', 'proof_sent', 'proof_delivered'] as const) {
    await db
      .deleteFrom(table)
      .where('chain', '=', chain)
      .where('block_number', '>=', Number(fromBlock))
      .execute();
  }
}

/** Stores FerryApp's ProofSent (one row per order hash) and ProofDelivered events of one scanned range. */
export async function insertProofLogs(
  db: Executor,
  sent: readonly ProofSentLog[],
  delivered: readonly ProofDeliveredLog[],
): Promise<void> {
  const sentRows = sent.flatMap((p) =>
    p.orderHashes.map((orderHash) => ({
      chain: p.chain,
      tx_hash: p.txHash.toLowerCase(),
      log_index: p.logIndex,
      order_hash: orderHash.toLowerCase(),
      guid: p.guid.toLowerCase(),
      dst_eid: p.dstEid,
      block_number: Number(p.blockNumber),
      block_timestamp: p.blockTimestamp,
    })),
  );
  if (sentRows.length > 0) {
    await db
      .insertInto('proof_sent')
      .values(sentRows)
      .onConflict((oc) => oc.columns(['chain', 'tx_hash', 'log_index', 'order_hash']).doNothing())
      .execute();
  }
  if (delivered.length === 0) return;
  await db
    .insertInto('proof_delivered')
    .values(
      delivered.map((p) => ({
        chain: p.chain,
        tx_hash: p.txHash.toLowerCase(),
        log_index: p.logIndex,
        guid: p.guid.toLowerCase(),
        src_eid: p.srcEid,
        block_number: Number(p.blockNumber),
        block_timestamp: p.blockTimestamp,
      })),
    )
    .onConflict((oc) => oc.columns(['chain', 'tx_hash', 'log_index']).doNothing())
    .execute();
}

/** A proof message seen for one order: where it was sent, and its delivery if that was seen too. */
export interface ProofMessageRecord {
  readonly guid: `0x${string}`;
  readonly txHash: `0x${string}`;
  /** Unix seconds, output-chain time. */
  readonly sentAt: number;
  /** The output-chain block that holds the ProofSent. */
  readonly blockNumber: number;
  readonly delivered: { readonly txHash: `0x${string}`; readonly at: number } | null;
}

/**
 * The newest proof message sent on `outputChain` for `orderHash` (a later message, e.g. the worker's prove after
 * a message that never arrived, supersedes an earlier one), with its delivery on `inputChain` if seen.
 */
export async function findProofMessage(
  db: Executor,
  outputChain: string,
  inputChain: string,
  orderHash: string,
): Promise<ProofMessageRecord | null> {
  const sent = await db
    .selectFrom('proof_sent')
    .select(['guid', 'tx_hash', 'block_timestamp', 'block_number'])
    .where('chain', '=', outputChain)
    .where('order_hash', '=', orderHash.toLowerCase())
    .orderBy('block_number', 'desc')
    .orderBy('log_index', 'desc')
    .executeTakeFirst();
  if (!sent) return null;
  const delivered = await db
    .selectFrom('proof_delivered')
    .select(['tx_hash', 'block_timestamp'])
    .where('chain', '=', inputChain)
    .where('guid', '=', sent.guid)
    .orderBy('block_number')
    .executeTakeFirst();
  return {
    guid: sent.guid as `0x${string}`,
    txHash: sent.tx_hash as `0x${string}`,
    sentAt: Number(sent.block_timestamp),
    blockNumber: Number(sent.block_number),
    delivered: delivered
      ? { txHash: delivered.tx_hash as `0x${string}`, at: Number(delivered.block_timestamp) }
      : null,
  };
}

/**
 * Proof messages sent on `outputChain` to `dstEid` in or before `throughBlock` with no ProofDelivered seen on
 * `inputChain`, whoever's order they prove: newest first (a path's nonces rise with its sends), at most `limit`.
 */
export async function undeliveredProofMessages(
  db: Executor,
  route: { outputChain: string; inputChain: string; dstEid: number },
  throughBlock: number,
  limit: number,
): Promise<{ readonly guid: `0x${string}`; readonly txHash: `0x${string}` }[]> {
  const rows = await db
    .selectFrom('proof_sent')
    .select(['guid', 'tx_hash'])
    .distinct()
    .select(['block_number', 'log_index'])
    .where('chain', '=', route.outputChain)
    .where('dst_eid', '=', route.dstEid)
    .where('block_number', '<=', throughBlock)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('proof_delivered')
            .select('proof_delivered.guid')
            .where('proof_delivered.chain', '=', route.inputChain)
            .whereRef('proof_delivered.guid', '=', 'proof_sent.guid'),
        ),
      ),
    )
    .orderBy('block_number', 'desc')
    .orderBy('log_index', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ guid: r.guid as `0x${string}`, txHash: r.tx_hash as `0x${string}` }));
}

function toChainFill(row: Selectable<ChainFillsTable>): ChainFill {
  return {
    chain: row.chain,
    txHash: row.tx_hash as `0x${string}`,
    logIndex: Number(row.log_index),
    orderHash: row.order_hash as `0x${string}`,
    filler: row.filler as Address,
    recipient: row.recipient as Address,
    token: row.token as Address,
    amount: BigInt(row.amount),
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash as `0x${string}`,
    blockTimestamp: Number(row.block_timestamp),
  };
}

/**
 * The earliest stored fill of `orderHash` on `chain`, whoever filled it (FerryFill takes one fill per order; its
 * filler is the filler of record), or null.
 */
export async function findChainFill(
  db: Executor,
  chain: string,
  orderHash: string,
): Promise<ChainFill | null> {
  const row = await db
    .selectFrom('chain_fills')
    .selectAll()
    .where('chain', '=', chain)
    .where('order_hash', '=', orderHash.toLowerCase())
    .orderBy('block_number')
    .orderBy('log_index')
    .executeTakeFirst();
  return row ? toChainFill(row) : null;
}
