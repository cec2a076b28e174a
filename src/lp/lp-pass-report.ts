import type { Hex } from 'viem';

/**
 * What one pass of the bot did. Each part of the bot (quoter, filler, prover, poll loop) adds to it, and lp-bot.ts
 * returns it, so it sits below them all.
 */
export interface PassReport {
  quoted: { quoteRequestId: string; quoteId: string; outputAmount: string }[];
  filled: { orderId: string; orderHash: Hex; txHash: Hex }[];
  /** Batch proofs mined at depth in this pass (lp-prover.ts). */
  proved: { batchId: string; orderHashes: Hex[]; txHash: Hex }[];
  errors: { subject: string; message: string }[];
  /** Set when Ferry answered 429: wait at least this long before the next pass. */
  retryAfterMs: number | null;
  /**
   * When (unix ms) the next pass must run at the latest: a proof batch falls due, or a transaction sent without
   * waiting for its receipt (the fills) is to be seen in a block. Null: the next poll is soon enough.
   */
  nextPassAt: number | null;
}
