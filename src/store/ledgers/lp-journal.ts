import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Hex } from 'viem';
import type { TxAction, TxActionStatus, TxLedger } from '../../chains/transactions/tx-ledger.ts';
import { createLpFillOutputs, type FillOutputTables, type LpFillOutputs } from './lp-fill-outputs.ts';
import { migrateLpJournal } from './lp-journal-migrations.ts';
import { createLpProofJournal, type LpProofJournal, type ProofTables } from './lp-proof-journal.ts';
import {
  createStoreTxLedger,
  type LedgerGuard,
  type LedgerTables,
  latestLedgerAction,
} from './tx-ledger-store.ts';

/** A quote the bot made: the only orders it fills are those of quotes in here, on exactly these terms. */
export interface JournalQuote {
  readonly quoteId: string;
  readonly quoteRequestId: string;
  readonly inputChain: string;
  readonly inputToken: string;
  readonly inputAmount: bigint;
  readonly outputChain: string;
  readonly outputToken: string;
  readonly outputAmount: bigint;
  /** The wallet whose request it answers (lowercase; '' in a journal written before offerers were kept). */
  readonly offerer: string;
  /** The spread the bot priced it at: its fill re-checks the order's price against it. */
  readonly spreadBps: number;
  /** active: may still be accepted; ordered: accepted, not yet filled; filled; ended: nothing more to deliver. */
  readonly status: 'active' | 'ordered' | 'filled' | 'ended';
  /** Until when (unix ms) its output stays reserved against the wallet's balance while active or ordered. */
  readonly reservedUntil: number;
}

interface LpQuotesTable {
  quote_id: string;
  quote_request_id: string;
  input_chain: string;
  input_token: string;
  input_amount: string;
  output_chain: string;
  output_token: string;
  output_amount: string;
  offerer: string;
  spread_bps: number;
  status: string;
  reserved_until: number;
}

export interface JournalTables extends LedgerTables, ProofTables, FillOutputTables {
  lp_quotes: LpQuotesTable;
}

export interface LpJournal {
  /** The transaction client's ledger: the bot's approvals and fills, written down before they are broadcast. */
  readonly ledger: TxLedger<LedgerGuard<JournalTables>>;
  /** Whether the journal holds an action of `kind` for `subject` in one of `statuses` (inside a ledger write). */
  hasAction(
    trx: unknown,
    subject: string,
    kind: string,
    statuses: readonly TxActionStatus[],
  ): Promise<boolean>;
  /** Whether any transaction of the bot's is still open (sent, not yet at depth or ended). */
  hasOpenActions(): Promise<boolean>;
  /** The newest action of `kind` for `subject` (the highest seq), if any. */
  latestAction(subject: string, kind: string): Promise<TxAction | null>;
  /**
   * A confirmed action whose transaction a reorg took off the canonical chain is open again (`recorded`, its mined
   * transaction back to `mined`): the transaction client then broadcasts its signed bytes again, or, when its nonce
   * went elsewhere, marks it a nonce conflict so the owner sends a fresh one. False when it was not confirmed.
   */
  reopenAction(actionId: string, now: number): Promise<boolean>;
  recordQuote(quote: JournalQuote): Promise<void>;
  /**
   * Quotes still `ordered` whose fill the ledger holds confirmed (at depth): the bot marks them filled once the
   * chain shows the fill, whatever Ferry's listing says by then.
   */
  confirmedOrdered(): Promise<
    { quoteId: string; orderId: string; orderHash: Hex; chain: string; txHash: Hex }[]
  >;
  findQuote(quoteId: string): Promise<JournalQuote | null>;
  /** Moves a quote on (active → ordered → filled, or → ended), keeping it reserved until `reservedUntil`. */
  setQuoteStatus(quoteId: string, status: JournalQuote['status'], reservedUntil?: number): Promise<void>;
  /**
   * The output still promised on `chain` in `token`: active and ordered quotes not yet past `reservedUntil`; only
   * those answering `offerer` when given.
   */
  reserved(chain: string, token: string, now: number, offerer?: string): Promise<bigint>;
  /** The fills on LayerZero routes and the batches proving them (lp-proof-journal.ts). */
  readonly proofs: LpProofJournal;
  /** What the fills in flight pay out (lp-fill-outputs.ts). */
  readonly fillOutputs: LpFillOutputs;
  close(): Promise<void>;
}

const toQuote = (row: LpQuotesTable): JournalQuote => ({
  quoteId: row.quote_id,
  quoteRequestId: row.quote_request_id,
  inputChain: row.input_chain,
  inputToken: row.input_token,
  inputAmount: BigInt(row.input_amount),
  outputChain: row.output_chain,
  outputToken: row.output_token,
  outputAmount: BigInt(row.output_amount),
  offerer: row.offerer,
  spreadBps: Number(row.spread_bps),
  status: row.status as JournalQuote['status'],
  reservedUntil: Number(row.reserved_until),
});

/** Quotes still ordered whose fill the ledger holds confirmed (LpJournal.confirmedOrdered). */
async function confirmedOrderedFills(db: Kysely<JournalTables>) {
  const rows = await db
    .selectFrom('lp_fill_outputs as o')
    .innerJoin('lp_quotes as q', 'q.quote_id', 'o.quote_id')
    .innerJoin('chain_actions as a', (join) =>
      join.onRef('a.order_id', '=', 'o.order_hash').on('a.kind', '=', 'fill'),
    )
    .select(['o.quote_id', 'o.order_id', 'o.order_hash', 'o.chain', 'a.tx_hash'])
    .where('q.status', '=', 'ordered')
    .where('a.status', '=', 'confirmed')
    .execute();
  return rows.map((r) => ({
    quoteId: r.quote_id,
    orderId: r.order_id,
    orderHash: r.order_hash as Hex,
    chain: r.chain,
    txHash: r.tx_hash as Hex,
  }));
}

/** The journal's file, at this code's version; closed again when it cannot be brought there. */
function openJournalFile(file: string): SQLite.Database {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  try {
    migrateLpJournal(sqlite, file);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqlite;
}

/**
 * The LP bot's journal: one SQLite file of its own (the bot has no access to Ferry's database) holding what it
 * quoted and every transaction it signed. Writes are durable before they return (synchronous = FULL): a fill
 * written down and then lost to a crash would be signed again with another nonce.
 * Its schema is brought to this code's version on open (lp-journal-migrations.ts); a newer journal is refused.
 */
export function openLpJournal(file: string): LpJournal {
  const sqlite = openJournalFile(file);
  const db = new Kysely<JournalTables>({ dialect: new SqliteDialect({ database: sqlite }) });
  const ledger = createStoreTxLedger<JournalTables>({
    db,
    dialect: 'sqlite',
    transaction: (work) => db.transaction().execute(work),
  });

  const proofs = createLpProofJournal(db);
  return {
    ledger,
    proofs,
    fillOutputs: createLpFillOutputs(db),
    async hasAction(trx, subject, kind, statuses) {
      const row = await (trx as Kysely<JournalTables>)
        .selectFrom('chain_actions')
        .select('id')
        .where('order_id', '=', subject)
        .where('kind', '=', kind)
        .where('status', 'in', [...statuses])
        .executeTakeFirst();
      return row !== undefined;
    },
    async hasOpenActions() {
      const row = await db
        .selectFrom('chain_actions')
        .select('id')
        .where('status', '=', 'recorded')
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
    latestAction: (subject, kind) => latestLedgerAction(db, subject, kind),
    reopenAction: (actionId, now) =>
      db.transaction().execute(async (trx) => {
        const reopened = await trx
          .updateTable('chain_actions')
          .set({ status: 'recorded', waiting_since: now, updated_at: now })
          .where('id', '=', actionId)
          .where('status', '=', 'confirmed')
          .returning(['order_id', 'kind'])
          .executeTakeFirst();
        if (!reopened) return false;
        if (reopened.kind === 'fill') await proofs.reopenFill(trx, reopened.order_id);
        await trx
          .updateTable('chain_action_txs')
          .set({ status: 'mined' })
          .where('action_id', '=', actionId)
          .where('status', '=', 'confirmed')
          .execute();
        return true;
      }),
    confirmedOrdered: () => confirmedOrderedFills(db),
    async recordQuote(q) {
      await db
        .insertInto('lp_quotes')
        .values({
          quote_id: q.quoteId,
          quote_request_id: q.quoteRequestId,
          input_chain: q.inputChain,
          input_token: q.inputToken.toLowerCase(),
          input_amount: q.inputAmount.toString(),
          output_chain: q.outputChain,
          output_token: q.outputToken.toLowerCase(),
          output_amount: q.outputAmount.toString(),
          offerer: q.offerer.toLowerCase(),
          spread_bps: q.spreadBps,
          status: q.status,
          reserved_until: q.reservedUntil,
        })
        .onConflict((oc) => oc.column('quote_id').doNothing())
        .execute();
    },
    async findQuote(quoteId) {
      const row = await db
        .selectFrom('lp_quotes')
        .selectAll()
        .where('quote_id', '=', quoteId)
        .executeTakeFirst();
      return row ? toQuote(row) : null;
    },
    async setQuoteStatus(quoteId, status, reservedUntil) {
      await db
        .updateTable('lp_quotes')
        .set({ status, ...(reservedUntil === undefined ? {} : { reserved_until: reservedUntil }) })
        .where('quote_id', '=', quoteId)
        .execute();
    },
    async reserved(chain, token, now, offerer) {
      let query = db
        .selectFrom('lp_quotes')
        .select('output_amount')
        .where('output_chain', '=', chain)
        .where('output_token', '=', token.toLowerCase());
      if (offerer !== undefined) query = query.where('offerer', '=', offerer.toLowerCase());
      const rows = await query
        .where('status', 'in', ['active', 'ordered'])
        // An order refunded or failed while the bot looked away would otherwise hold its output for good.
        .where('reserved_until', '>', now)
        .execute();
      // Amounts are uint256: summed as bigint, not by SQLite's 64-bit SUM.
      return rows.reduce((sum, r) => sum + BigInt(r.output_amount), 0n);
    },
    async close() {
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db).catch(() => {});
      await db.destroy();
    },
  };
}
