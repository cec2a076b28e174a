import { describe, expect, it } from 'vitest';
import { covers, promiseBounds, promiseHoldsUntil, quoteHoldsUntil } from './lp-coverage.ts';

describe('LP coverage rule', () => {
  it('an active quote holds until its end, an accepted one through its deposit window, an order until filled', () => {
    expect(promiseHoldsUntil('quote', 10_000, 600)).toBe(10_000);
    expect(promiseHoldsUntil('accepted', 10_000, 600)).toBe(10_600);
    expect(promiseHoldsUntil('order', 10_000, 600)).toBeNull();
  });

  it('a provider that cannot tell accepted from active reserves a quote through its deposit window', () => {
    expect(quoteHoldsUntil(10_000, 600)).toBe(promiseHoldsUntil('accepted', 10_000, 600));
  });

  it("the read's bounds count exactly the promises whose time has not passed", () => {
    const now = new Date(10_300_500);
    const bounds = promiseBounds(now, 600);
    expect(bounds).toEqual({ nowSeconds: 10_300, acceptedSinceSeconds: 10_300 - 600 });
    // end_time > bound ⇔ the promise still holds at now.
    for (const endTime of [9_699, 9_700, 9_701, 10_299, 10_300, 10_301]) {
      expect(endTime > bounds.nowSeconds).toBe(promiseHoldsUntil('quote', endTime, 600)! > 10_300);
      expect(endTime > bounds.acceptedSinceSeconds).toBe(
        promiseHoldsUntil('accepted', endTime, 600)! > 10_300,
      );
    }
  });

  it('covers: the balance must hold the new amount on top of what is promised', () => {
    expect(covers(100n, 80n, 20n)).toBe(true);
    expect(covers(100n, 80n, 21n)).toBe(false);
    expect(covers(0n, 0n, 0n)).toBe(true);
  });
});
