import { describe, expect, it } from 'vitest';
import {
  acceptRefusal,
  canTransitionOrder,
  canTransitionQuote,
  effectiveQuoteRequestStatus,
  effectiveQuoteStatus,
  executeRefusal,
  isQuoteRequestOpen,
  ORDER_STATUSES,
  orderTransitionStamps,
  QUOTE_STATUSES,
  quoteEnded,
  quoteRequestExpired,
  quoteRequestExpiresAt,
  TERMINAL_ORDER_STATUSES,
  UNFILLED_ORDER_STATUSES,
  WORKING_ORDER_STATUSES,
} from './lifecycle.ts';

const at = (ms: number) => new Date(ms);
const END = 1_000; // unix seconds
const openRequest = { status: 'open' as const, expiresAt: at(2_000_000) };

describe('quote and quote request expiry', () => {
  it('a quote holds until its endTime, exclusive, on whole seconds', () => {
    expect(quoteEnded(END, at(999_999))).toBe(false);
    expect(quoteEnded(END, at(1_000_000))).toBe(true);
    expect(effectiveQuoteStatus('active', END, at(999_999))).toBe('active');
    expect(effectiveQuoteStatus('active', END, at(1_000_000))).toBe('expired');
    // Only `active` lapses: an accepted or declined quote keeps its status.
    expect(effectiveQuoteStatus('accepted', END, at(5_000_000))).toBe('accepted');
    expect(effectiveQuoteStatus('declined', END, at(5_000_000))).toBe('declined');
  });

  it('a request is open until its expiresAt, exclusive', () => {
    expect(quoteRequestExpired(at(10), at(9))).toBe(false);
    expect(quoteRequestExpired(at(10), at(10))).toBe(true);
    expect(effectiveQuoteRequestStatus('open', at(10), at(10))).toBe('expired');
    expect(effectiveQuoteRequestStatus('accepted', at(10), at(11))).toBe('accepted');
    expect(isQuoteRequestOpen({ status: 'open', expiresAt: at(10) }, at(9))).toBe(true);
    expect(isQuoteRequestOpen({ status: 'open', expiresAt: at(10) }, at(10))).toBe(false);
    expect(isQuoteRequestOpen({ status: 'cancelled', expiresAt: at(10) }, at(9))).toBe(false);
  });

  it('a request expires its TTL after its creation', () => {
    expect(quoteRequestExpiresAt(at(1_000), 120)).toEqual(at(121_000));
  });
});

describe('accepting a quote', () => {
  it('an active quote within its endTime on an open request may be accepted', () => {
    expect(acceptRefusal({ status: 'active', endTime: END }, openRequest, at(999_999))).toBeNull();
  });

  it('past its endTime it has expired, whatever the sweep wrote', () => {
    expect(acceptRefusal({ status: 'active', endTime: END }, openRequest, at(1_000_000))).toEqual({
      code: 'QUOTE_EXPIRED',
    });
    expect(acceptRefusal({ status: 'expired', endTime: END }, openRequest, at(0))).toEqual({
      code: 'QUOTE_EXPIRED',
    });
  });

  it('a quote no longer active, or on a closed request, is refused', () => {
    expect(acceptRefusal({ status: 'declined', endTime: END }, openRequest, at(0))).toEqual({
      code: 'QUOTE_NOT_ACTIVE',
      status: 'declined',
    });
    const lapsed = { status: 'open' as const, expiresAt: at(500_000) };
    expect(acceptRefusal({ status: 'active', endTime: END }, lapsed, at(500_000))).toEqual({
      code: 'QUOTE_REQUEST_CLOSED',
    });
  });
});

describe('executing a quote', () => {
  it('an accepted quote may be executed until its endTime, not after', () => {
    expect(executeRefusal({ status: 'accepted', endTime: END }, at(999_999))).toBeNull();
    expect(executeRefusal({ status: 'accepted', endTime: END }, at(1_000_000))).toEqual({
      code: 'QUOTE_EXPIRED',
    });
  });

  it('a quote not accepted is refused with its status; a lapsed active one has expired', () => {
    expect(executeRefusal({ status: 'active', endTime: END }, at(0))).toEqual({
      code: 'QUOTE_NOT_ACTIVE',
      status: 'active',
    });
    expect(executeRefusal({ status: 'active', endTime: END }, at(1_000_000))).toEqual({
      code: 'QUOTE_EXPIRED',
    });
  });
});

describe('order transitions', () => {
  it('only go forward, and never out of a terminal status', () => {
    expect(canTransitionOrder('created', 'deposited')).toBe(true);
    expect(canTransitionOrder('deposited', 'created')).toBe(false);
    for (const to of ORDER_STATUSES) {
      expect(canTransitionOrder('completed', to)).toBe(false);
      expect(canTransitionOrder('refunded', to)).toBe(false);
    }
  });

  it('completing stamps completedAt and clears the earlier problem note; nothing else does', () => {
    const now = at(42);
    expect(orderTransitionStamps('completed', now)).toEqual({ completedAt: now, clearFailureReason: true });
    for (const to of ORDER_STATUSES.filter((s) => s !== 'completed')) {
      expect(orderTransitionStamps(to, now)).toEqual({ completedAt: null, clearFailureReason: false });
    }
  });
});

describe('quote and quote request transitions', () => {
  it('leave only active quotes and open requests, once', () => {
    for (const to of ['accepted', 'declined', 'expired', 'withdrawn'] as const) {
      expect(canTransitionQuote('active', to)).toBe(true);
    }
    for (const from of QUOTE_STATUSES.filter((s) => s !== 'active')) {
      for (const to of QUOTE_STATUSES) expect(canTransitionQuote(from, to)).toBe(false);
    }
  });
});

describe('order status sets', () => {
  it('derive from the transitions: working is all but terminal, unfilled is what a fill can still reach', () => {
    expect(WORKING_ORDER_STATUSES).toEqual(['created', 'deposited', 'filled']);
    expect([...WORKING_ORDER_STATUSES, ...TERMINAL_ORDER_STATUSES].sort()).toEqual(
      [...ORDER_STATUSES].sort(),
    );
    expect(UNFILLED_ORDER_STATUSES).toEqual(['created', 'deposited']);
  });
});
