import type { Kysely, Transaction } from 'kysely';
import type { Hex } from 'viem';
import type { OrderTerms } from '../../domain/order-typed-data.ts';

/**
 * A fill the LP bot made on a LayerZero route and still has to prove (or saw proven). Written in the same journal
 * write as the fill's transaction, before it is broadcast, so a crash between the fill and its proof loses nothing.
 */
export interface JournalFill {
  readonly orderHash: Hex;
  readonly orderId: string;
  readonly outputChain: string;
  readonly inputChain: string;
  /** The input chain's escrow the order was signed for: prove() takes it, and one message serves one escrow. */
  readonly escrow: Hex;
  /** The order exactly as signed: prove() takes it whole. */
  readonly order: OrderTerms;
  /** unproven: waits for a batch; proven: a proof message for it was sent (by the bot or anyone); done: settled. */
  readonly status: 'unproven' | 'proven' | 'done';
  /** When (unix ms) the bot first saw its fill at depth: the batch window starts at the route's oldest; null before. */
  readonly filledAt: number | null;
  /** The block the fill is in: where the search for someone else's proof of it starts. */
  readonly fillBlock: bigint | null;
  /** The batch whose prove transaction carries it, while that batch is open. */
  readonly batchId: string | null;
}

export interface JournalBatch {
  readonly batchId: string;
  readonly outputChain: string;
  readonly status: 'open' | 'proven' | 'failed';
  readonly orderHashes: Hex[];
}

interface LpFillsTable {
  order_hash: string;
  order_id: string;
  output_chain: string;
  input_chain: string;
  escrow: string;
  order_json: string;
  status: string;
  filled_at: number | null;
  fill_block: string | null;
  batch_id: string | null;
}

interface LpProveBatchesTable {
  batch_id: string;
  output_chain: string;
  status: string;
  created_at: number;
}

export interface ProofTables {
  lp_fills: LpFillsTable;
  lp_prove_batches: LpProveBatchesTable;
}

/** The bot's fills on LayerZero routes and the batches proving them (kept in the LP journal's file). */
export interface LpProofJournal {
  /**
   * Inside the fill's ledger write: the fill to prove. A fill the journal has already (sent again after a reorg)
   * is to prove again: its row is reset as reopenFill does.
   */
  recordFill(
    trx: unknown,
    fill: Omit<JournalFill, 'status' | 'filledAt' | 'fillBlock' | 'batchId'>,
  ): Promise<void>;
  /**
   * Inside the write that opens a confirmed fill again (a reorg took it off the chain): the fill is unproven again,
   * out of any batch (a batch closed proven carried the fill the reorg removed), and waits for its new block; its
   * fill_block stays, a lower bound for the search for someone else's proof.
   */
  reopenFill(trx: unknown, orderHash: string): Promise<void>;
  /** Fills not yet proven (outside an open batch or in one), oldest first. */
  unproven(): Promise<JournalFill[]>;
  /** The fill was seen at depth in `block` at `at` (unix ms): its batch window may start. */
  noteFilled(orderHash: Hex, at: number, block: bigint): Promise<void>;
  /** Fills proven by someone else, or settled or refunded on the input chain: never proven again. */
  setStatus(orderHashes: readonly Hex[], status: 'proven' | 'done'): Promise<void>;
  /**
   * Inside the prove transaction's ledger write: the batch and its fills, only if none of them is in another open
   * batch or proven meanwhile (false, and nothing is written or sent).
   */
  claim(
    trx: unknown,
    batchId: string,
    outputChain: string,
    orderHashes: readonly Hex[],
    now: number,
  ): Promise<boolean>;
  openBatches(): Promise<JournalBatch[]>;
  /** A batch's prove is mined at depth (its fills proven) or failed (its fills wait for the next batch). */
  closeBatch(batchId: string, outcome: 'proven' | 'failed'): Promise<void>;
}

const orderJson = (order: OrderTerms) =>
  JSON.stringify(order, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value));
const orderOf = (json: string): OrderTerms =>
  JSON.parse(json, (_key, value) =>
    typeof value === 'string' && /^\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value,
  );

/** What a fill sent or opened again resets: a proof of its earlier block no longer counts. */
const REOPENED = { status: 'unproven', batch_id: null, filled_at: null } as const;

const toFill = (row: LpFillsTable): JournalFill => ({
  orderHash: row.order_hash as Hex,
  orderId: row.order_id,
  outputChain: row.output_chain,
  inputChain: row.input_chain,
  escrow: row.escrow as Hex,
  order: orderOf(row.order_json),
  status: row.status as JournalFill['status'],
  filledAt: row.filled_at === null ? null : Number(row.filled_at),
  fillBlock: row.fill_block === null ? null : BigInt(row.fill_block),
  batchId: row.batch_id,
});

export function createLpProofJournal<DB extends ProofTables>(database: Kysely<DB>): LpProofJournal {
  const db = database as unknown as Kysely<ProofTables>;
  const inTrx = (trx: unknown) => trx as Transaction<ProofTables>;
  return {
    async recordFill(trx, fill) {
      await inTrx(trx)
        .insertInto('lp_fills')
        .values({
          order_hash: fill.orderHash.toLowerCase(),
          order_id: fill.orderId,
          output_chain: fill.outputChain,
          input_chain: fill.inputChain,
          escrow: fill.escrow,
          order_json: orderJson(fill.order),
          status: 'unproven',
          filled_at: null,
          fill_block: null,
          batch_id: null,
        })
        // A fill sent again (a reorg took the first, and maybe its proof, off the chain) is to prove again.
        .onConflict((oc) => oc.column('order_hash').doUpdateSet(REOPENED))
        .execute();
    },
    async reopenFill(trx, orderHash) {
      await inTrx(trx)
        .updateTable('lp_fills')
        .set(REOPENED)
        .where('order_hash', '=', orderHash.toLowerCase())
        .execute();
    },
    async unproven() {
      const rows = await db
        .selectFrom('lp_fills')
        .selectAll()
        .where('status', '=', 'unproven')
        .orderBy('filled_at')
        .orderBy('order_hash')
        .execute();
      return rows.map(toFill);
    },
    async noteFilled(orderHash, at, block) {
      await db
        .updateTable('lp_fills')
        .set({ filled_at: at, fill_block: block.toString() })
        .where('order_hash', '=', orderHash.toLowerCase())
        .where('filled_at', 'is', null)
        .execute();
    },
    async setStatus(orderHashes, status) {
      if (orderHashes.length === 0) return;
      await db
        .updateTable('lp_fills')
        .set({ status, batch_id: null })
        .where(
          'order_hash',
          'in',
          orderHashes.map((h) => h.toLowerCase()),
        )
        .execute();
    },
    async claim(trx, batchId, outputChain, orderHashes, now) {
      const t = inTrx(trx);
      const hashes = orderHashes.map((h) => h.toLowerCase());
      // Checked before anything is written: a guard that says no leaves its write in place.
      const free = await t
        .selectFrom('lp_fills')
        .select('order_hash')
        .where('order_hash', 'in', hashes)
        .where('status', '=', 'unproven')
        .where('batch_id', 'is', null)
        .execute();
      if (free.length !== hashes.length) return false;
      await t
        .insertInto('lp_prove_batches')
        .values({ batch_id: batchId, output_chain: outputChain, status: 'open', created_at: now })
        .execute();
      await t.updateTable('lp_fills').set({ batch_id: batchId }).where('order_hash', 'in', hashes).execute();
      return true;
    },
    async openBatches() {
      const batches = await db
        .selectFrom('lp_prove_batches')
        .selectAll()
        .where('status', '=', 'open')
        .execute();
      const out: JournalBatch[] = [];
      for (const b of batches) {
        const fills = await db
          .selectFrom('lp_fills')
          .select('order_hash')
          .where('batch_id', '=', b.batch_id)
          .execute();
        out.push({
          batchId: b.batch_id,
          outputChain: b.output_chain,
          status: 'open',
          orderHashes: fills.map((f) => f.order_hash as Hex),
        });
      }
      return out;
    },
    async closeBatch(batchId, outcome) {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('lp_prove_batches')
          .set({ status: outcome })
          .where('batch_id', '=', batchId)
          .execute();
        await trx
          .updateTable('lp_fills')
          .set(outcome === 'proven' ? { status: 'proven', batch_id: null } : { batch_id: null })
          .where('batch_id', '=', batchId)
          .execute();
      });
    },
  };
}
