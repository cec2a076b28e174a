import { unixSeconds } from './clock.ts';

/**
 * A liquidity provider's coverage: a new quote is covered when the fill address holds its output on top of
 * everything the provider already promised on that output chain and token. The one home of the rule, read by
 * Ferry's coverage check (store/tables/lp-commitments-store.ts, over the running totals that migration 0019's triggers
 * keep by kind and end second: the triggers only sum, the times below decide what counts) and by the reference LP
 * bot's own reservations (lp/lp-quoter.ts), so the bot never posts a quote Ferry would refuse for its own promises.
 *
 * What counts, and until when (unix seconds, on Ferry's clock):
 * - `quote`: an active quote, until its `endTime` (after it, it can no longer be accepted);
 * - `accepted`: an accepted quote without an order, until `endTime` + OPEN_WINDOW_SECONDS (its swap's deposit
 *   window: the order may still come);
 * - `order`: an order still `created` or `deposited`, until it leaves those (no time bound).
 */
export type PromiseKind = 'quote' | 'accepted' | 'order';

/** Until when (unix seconds) a promise of `kind` made by a quote ending at `endTime` counts; null: no time bound. */
export function promiseHoldsUntil(
  kind: PromiseKind,
  endTime: number,
  openWindowSeconds: number,
): number | null {
  if (kind === 'quote') return endTime;
  if (kind === 'accepted') return endTime + openWindowSeconds;
  return null;
}

/**
 * The longest a quote holds its output without an order: until its deposit window closes. What a provider that
 * cannot tell its accepted quotes from its active ones (the bot learns of an acceptance only when the order shows)
 * reserves, so it never counts less than Ferry does.
 */
export function quoteHoldsUntil(endTime: number, openWindowSeconds: number): number {
  return promiseHoldsUntil('accepted', endTime, openWindowSeconds) as number;
}

/** The read's bounds at `now`: a promise of a kind counts while its end second is after the bound of that kind. */
export interface PromiseBounds {
  /** Active quotes count while end_time > this. */
  readonly nowSeconds: number;
  /** Accepted quotes without an order count while end_time > this (their deposit window). */
  readonly acceptedSinceSeconds: number;
}

/** promiseHoldsUntil turned round for a read at `now`: end_time > bound ⇔ promiseHoldsUntil(kind, end_time) > now. */
export function promiseBounds(now: Date, openWindowSeconds: number): PromiseBounds {
  const nowSeconds = unixSeconds(now);
  return { nowSeconds, acceptedSinceSeconds: nowSeconds - openWindowSeconds };
}

/** Whether `held` covers `amount` on top of `promised` (the SQL's ferry_cover compares the same). */
export function covers(held: bigint, promised: bigint, amount: bigint): boolean {
  return held >= promised + amount;
}
