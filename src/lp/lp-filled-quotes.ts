import type { Hex } from 'viem';
import { type ChainClients, fillTimeOf } from '../chains/settlement/lp-chain-clients.ts';
import type { LpJournal } from '../store/ledgers/lp-journal.ts';
import type { ChainInfo } from './ferry-api.ts';
import type { PassReport } from './lp-pass-report.ts';

export interface FilledQuotesDeps {
  readonly journal: LpJournal;
  chain(name: string): Promise<ChainInfo | null>;
  clientsFor(info: ChainInfo): ChainClients;
  /** The same `filled` line the filler writes for a fill it sees at depth: one word for "counted final". */
  readonly log?: { info(fields: object, msg: string): void };
}

/**
 * Marks filled the quotes whose fill the ledger holds at depth and the output chain shows (fillTimes non-zero).
 * Fills go out without waiting for their receipts, and Ferry's worker may list the order as filled before the
 * bot's watch of deposited orders saw it: read from Ferry's listing, such a quote would stay reserved until its
 * fill deadline, its output counted twice against the balance and missing from the report.
 */
export async function markFilledQuotes(
  deps: FilledQuotesDeps,
  report: PassReport,
  failed: (subject: string, error: unknown) => void,
): Promise<void> {
  for (const fill of await deps.journal.confirmedOrdered()) {
    try {
      const info = await deps.chain(fill.chain);
      if (!info) continue;
      if ((await fillTimeOf(deps.clientsFor(info), info.fill as Hex, fill.orderHash)) === 0n) continue;
      await deps.journal.setQuoteStatus(fill.quoteId, 'filled');
      report.filled.push({ orderId: fill.orderId, orderHash: fill.orderHash, txHash: fill.txHash });
      deps.log?.info({ orderId: fill.orderId, orderHash: fill.orderHash, txHash: fill.txHash }, 'filled');
    } catch (error) {
      failed(fill.orderId, error);
    }
  }
}
