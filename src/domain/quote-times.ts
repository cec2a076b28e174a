import { unixSeconds } from './clock.ts';

/** A quote's validity on the server's clock, and the deadlines of its signed order on the chains' clocks. */
export interface QuoteTimes {
  /** Unix seconds. */
  readonly startTime: number;
  /** Unix seconds: the quote may be accepted and executed before this (lifecycle.ts quoteEnded). */
  readonly endTime: number;
  /** Unix seconds on the input chain's clock. */
  readonly openDeadline: number;
  /** Unix seconds on the later of both chains' clocks. */
  readonly fillDeadline: number;
  /** Unix seconds on the output chain's clock: until then only the quoted LP may fill. */
  readonly exclusivityDeadline: number;
}

export interface QuoteTimesInput {
  readonly now: Date;
  readonly validForSeconds: number;
  /** Each chain's time now (unix seconds). */
  readonly inputChainNow: number;
  readonly outputChainNow: number;
  /** How long after the quote's end the deposit may still come (OPEN_WINDOW_SECONDS). */
  readonly openWindowSeconds: number;
  /** How long after the deposit window the fill may still come (FILL_WINDOW_SECONDS). */
  readonly fillWindowSeconds: number;
  /** How long after the quote's end only the quoted LP may fill (EXCLUSIVITY_SECONDS). */
  readonly exclusivitySeconds: number;
}

export function quoteTimes(input: QuoteTimesInput): QuoteTimes {
  const startTime = unixSeconds(input.now);
  const validFor = input.validForSeconds;
  // The contracts compare deadlines with block.timestamp, so they count from each chain's clock: the deposit on
  // the input chain's, the fill on the later of both (it must still hold on the output chain, and refund opens on
  // the input chain only after it).
  const bothNow = Math.max(input.inputChainNow, input.outputChainNow);
  return {
    startTime,
    endTime: startTime + validFor,
    openDeadline: input.inputChainNow + validFor + input.openWindowSeconds,
    fillDeadline: bothNow + validFor + input.openWindowSeconds + input.fillWindowSeconds,
    // The fill is checked against it on the output chain, so it counts from that chain's clock.
    exclusivityDeadline: input.outputChainNow + validFor + input.exclusivitySeconds,
  };
}
