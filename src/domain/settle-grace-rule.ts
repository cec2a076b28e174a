/**
 * The settle grace must outlast the slowest way a fill made at fillDeadline reaches the input chain's escrow. The
 * filler's fill is proven by the worker `proveAfter` seconds later at worst (the output chain's setting); the proof
 * message is verified once the DVNs have waited the output chain's `confirmations` blocks (× its block time) and
 * done their work (`dvnVerify`); a verified message nobody delivers is delivered by the worker `executeAfter`
 * seconds later (the input chain's setting). Their sum is the worst case: a grace below it lets the offerer's refund
 * open while an LP that filled in time is still on its way to being paid. The escrow's grace is immutable, so
 * `ferry deploy` refuses a shorter one and the worker reports it at start.
 */
export interface GraceRoute {
  readonly inputChain: string;
  readonly outputChain: string;
  /** The input chain's escrow's settleGrace (seconds). */
  readonly settleGrace: bigint;
  /** Blocks the DVNs wait on the output chain (where the proof message is sent) before verifying. */
  readonly sourceConfirmations: number;
  /** The output chain's block time in seconds (the registry's `blockTimeSeconds`). */
  readonly sourceBlockSeconds: number;
  /** Seconds the DVNs take to verify a message from the output chain once its confirmations are in. */
  readonly dvnVerifySeconds: number;
  /** The output chain's proveAfterSeconds. */
  readonly proveAfter: number;
  /** The input chain's executeAfterSeconds. */
  readonly executeAfter: number;
}

/** The shortest settleGrace (whole seconds) that covers the route's worst case. */
export function minimumSettleGrace(route: Omit<GraceRoute, 'settleGrace'>): number {
  return (
    Math.ceil(route.sourceConfirmations * route.sourceBlockSeconds) +
    route.dvnVerifySeconds +
    route.proveAfter +
    route.executeAfter
  );
}

/** How the minimum is made up, in the words of the registry's settings. */
export function graceBreakdown(route: Omit<GraceRoute, 'settleGrace'>): string {
  return (
    `${route.sourceConfirmations} confirmations × ${route.sourceBlockSeconds} s blocks (${route.outputChain}) + ` +
    `${route.dvnVerifySeconds} s DVN verification + proveAfterSeconds ${route.proveAfter} (${route.outputChain}) + ` +
    `executeAfterSeconds ${route.executeAfter} (${route.inputChain})`
  );
}

/** One line per route whose worst case does not fit in its grace; empty when all do. */
export function graceShortfalls(routes: readonly GraceRoute[]): string[] {
  return routes
    .filter((r) => r.settleGrace < BigInt(minimumSettleGrace(r)))
    .map(
      (r) =>
        `orders from ${r.inputChain} filled on ${r.outputChain}: the escrow's settleGrace of ${r.settleGrace} s is ` +
        `below the minimum of ${minimumSettleGrace(r)} s (${graceBreakdown(r)}): a fill proven at the deadline ` +
        'can arrive after the refund opens',
    );
}
