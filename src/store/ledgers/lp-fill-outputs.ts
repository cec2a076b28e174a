import type { Kysely } from 'kysely';
import type { LedgerTables } from './tx-ledger-store.ts';

/**
 * What each fill of the LP bot pays out, written in the same journal write as the fill's transaction (before it is
 * broadcast). The bot sends fills without waiting for their receipts, so the wallet's balance on the chain's latest
 * block does not yet show the fills in flight: their outputs are held back from it (inFlight) until a block holds
 * them, and a restart finds them here.
 */
interface LpFillOutputsTable {
  order_hash: string;
  chain: string;
  token: string;
  amount: string;
  /** The quote and Ferry order the fill delivers: its quote is marked filled from the ledger (lp-filled-quotes.ts). */
  quote_id: string;
  order_id: string;
}

export interface FillOutputTables extends LedgerTables {
  lp_fill_outputs: LpFillOutputsTable;
}

export interface LpFillOutputs {
  /** Inside the fill's ledger write (its guard): the output the fill pays. */
  record(
    trx: unknown,
    fill: {
      orderHash: string;
      chain: string;
      token: string;
      amount: bigint;
      quoteId?: string;
      orderId?: string;
    },
  ): Promise<void>;
  /**
   * The outputs in `token` on `chain` of the fills sent and not yet seen in a block: their action still open
   * (`recorded`) with no transaction known mined. A fill mined but not yet at depth already left the balance.
   */
  inFlight(chain: string, token: string): Promise<bigint>;
}

export function createLpFillOutputs<DB extends FillOutputTables>(database: Kysely<DB>): LpFillOutputs {
  const db = database as unknown as Kysely<FillOutputTables>;
  return {
    async record(trx, fill) {
      await (trx as Kysely<FillOutputTables>)
        .insertInto('lp_fill_outputs')
        .values({
          // The fill's subject as the ledger holds it.
          order_hash: fill.orderHash,
          chain: fill.chain,
          token: fill.token.toLowerCase(),
          amount: fill.amount.toString(),
          quote_id: fill.quoteId ?? '',
          order_id: fill.orderId ?? '',
        })
        .onConflict((oc) => oc.column('order_hash').doNothing())
        .execute();
    },
    async inFlight(chain, token) {
      const rows = await db
        .selectFrom('lp_fill_outputs as o')
        .innerJoin('chain_actions as a', (join) =>
          join.onRef('a.order_id', '=', 'o.order_hash').on('a.kind', '=', 'fill'),
        )
        .select('o.amount')
        .where('o.chain', '=', chain)
        .where('o.token', '=', token.toLowerCase())
        .where('a.status', '=', 'recorded')
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('chain_action_txs as t')
                .select('t.tx_hash')
                .whereRef('t.action_id', '=', 'a.id')
                .where('t.status', '=', 'mined'),
            ),
          ),
        )
        .execute();
      // Amounts are uint256: summed as bigint, not by SQLite's 64-bit SUM.
      return rows.reduce((sum, r) => sum + BigInt(r.amount), 0n);
    },
  };
}
