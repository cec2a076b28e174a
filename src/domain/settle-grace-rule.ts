/**
 * The settle grace must outlast the worker's own fallbacks. A fill made at fillDeadline that nobody proves is
 * proven by the worker `proveAfter` seconds later (the output chain's setting), and a verified message nobody
 * delivers is delivered `executeAfter` seconds after it was sent (the input chain's setting). If the two add up to
 * the escrow's grace or more, the offerer's refund can open before the worker's proof lands, and an LP that filled
 * in time is not paid.
 */
export interface GraceRoute {
  readonly inputChain: string;
  readonly outputChain: string;
  /** The input chain's escrow's settleGrace (seconds). */
  readonly settleGrace: bigint;
  /** The output chain's proveAfterSeconds. */
  readonly proveAfter: number;
  /** The input chain's executeAfterSeconds. */
  readonly executeAfter: number;
}

/** One line per route whose fallbacks do not fit in its grace; empty when all do. */
export function graceShortfalls(routes: readonly GraceRoute[]): string[] {
  return routes
    .filter((r) => BigInt(r.proveAfter + r.executeAfter) >= r.settleGrace)
    .map(
      (r) =>
        `orders from ${r.inputChain} filled on ${r.outputChain}: proveAfterSeconds ${r.proveAfter} (${r.outputChain}) + ` +
        `executeAfterSeconds ${r.executeAfter} (${r.inputChain}) = ${r.proveAfter + r.executeAfter} s is not below ` +
        `the escrow's settleGrace of ${r.settleGrace} s: a fill the worker proves at the deadline can arrive after ` +
        'the refund opens',
    );
}
