import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type HttpResponse, startHarness } from './support/harness.ts';

/**
 * Pagination of the four list endpoints: defaults (page 1, pageSize 50), total / totalPages arithmetic,
 * stable pages that cover the list exactly once, pages past the end, and out-of-range values refused.
 *
 * Data: 7 quote requests created one second apart (the ManualClock moves between them, so "newest first"
 * is deterministic); lp1 quotes requests 0-4, lp2 quotes requests 3-6; requests 0-2 are accepted (lp1's quote)
 * and executed, giving 3 orders: 0 and 1 by the offerer wallet, 2 by the other wallet.
 */

const REQUESTS = 7;

describe('pagination', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp1: { id: string; apiKey: string };
  let lp2: { id: string; apiKey: string };
  /** Quote request ids in creation order. */
  const requestIds: string[] = [];
  /** Order ids in creation order. */
  const orderIds: string[] = [];

  beforeAll(async () => {
    // The limiter is not under test here; this file sends close to 100 requests on the money mover's key.
    h = await startHarness({ rateLimits: { apiKey: 1000, session: 1000, ip: 1000 } });
    mm = await h.createAccount('moneyMover');
    lp1 = await h.createAccount('liquidityProvider', 'lp one');
    lp2 = await h.createAccount('liquidityProvider', 'lp two');
    const wallets = [h.offerer, h.offerer, h.otherWallet, h.offerer, h.offerer, h.offerer, h.offerer];
    for (let i = 0; i < REQUESTS; i++) {
      if (i > 0) h.clock.advance(1);
      const wallet = wallets[i]!;
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: {
          recipient: wallet.address,
          offerer: wallet.address,
          inputToken: h.usdcA,
          outputToken: h.usdcB,
          inputAmount: String(1_000_000 + i),
          inputChain: h.chainA,
          outputChain: h.chainB,
        },
      });
      expect(res.status).toBe(201);
      requestIds.push(res.body.data.quoteId);
    }
    const quotes: Array<{ quoteId: string; orderId: string; typedData: any }> = [];
    for (let i = 0; i < REQUESTS; i++) {
      for (const lp of i <= 4 ? (i >= 3 ? [lp1, lp2] : [lp1]) : [lp2]) {
        const res = await h.http('POST', '/api/v1/quotes', {
          apiKey: lp.apiKey,
          body: { quoteRequestId: requestIds[i], outputAmount: '990000' },
        });
        expect(res.status).toBe(201);
        if (lp === lp1) quotes[i] = res.body.data;
      }
    }
    for (let i = 0; i < 3; i++) {
      const quote = quotes[i]!;
      const accepted = await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey: mm.apiKey });
      expect(accepted.status).toBe(200);
      const signature = await wallets[i]!.signTypedData(quote.typedData);
      const swap = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
      });
      expect(swap.status).toBe(201);
      orderIds.push(quote.orderId);
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  const newestFirst = (ids: readonly string[]) => [...ids].reverse();

  function expectPageFields(
    res: HttpResponse,
    where: 'top' | 'data',
    expected: { total: number; page: number; pageSize: number; totalPages: number; length: number },
  ) {
    expect(res.status).toBe(200);
    const meta = where === 'top' ? res.body : res.body.data;
    expect({
      total: meta.total,
      page: meta.page,
      pageSize: meta.pageSize,
      totalPages: meta.totalPages,
    }).toEqual({
      total: expected.total,
      page: expected.page,
      pageSize: expected.pageSize,
      totalPages: expected.totalPages,
    });
    const items = Array.isArray(res.body.data)
      ? res.body.data
      : (res.body.data.orders ?? res.body.data.quotes);
    expect(items).toHaveLength(expected.length);
  }

  describe('GET /api/v1/quote-requests', () => {
    const get = (query = '') => h.http('GET', `/api/v1/quote-requests${query}`, { apiKey: mm.apiKey });

    it('defaults to page 1 of 50, newest first', async () => {
      const res = await get();
      expectPageFields(res, 'top', { total: 7, page: 1, pageSize: 50, totalPages: 1, length: 7 });
      expect(res.body.data.map((qr: { id: string }) => qr.id)).toEqual(newestFirst(requestIds));
    });

    it.each([
      [2, 4],
      [3, 3],
      [7, 1],
      [6, 2],
    ])('pageSize %i: %i pages that cover every request exactly once', async (pageSize, totalPages) => {
      const seen: string[] = [];
      for (let page = 1; page <= totalPages; page++) {
        const res = await get(`?page=${page}&pageSize=${pageSize}`);
        const expectedLength = page < totalPages ? pageSize : REQUESTS - pageSize * (totalPages - 1);
        expectPageFields(res, 'top', { total: 7, page, pageSize, totalPages, length: expectedLength });
        expect(res.body.data).toHaveLength(expectedLength);
        seen.push(...res.body.data.map((qr: { id: string }) => qr.id));
      }
      expect(seen).toEqual(newestFirst(requestIds));
    });

    it('a page past the end is empty, with the right total', async () => {
      const res = await get('?page=5&pageSize=2');
      expectPageFields(res, 'top', { total: 7, page: 5, pageSize: 2, totalPages: 4, length: 0 });
      expect(res.body.data).toEqual([]);
      const far = await get('?page=1000000&pageSize=100');
      expectPageFields(far, 'top', { total: 7, page: 1000000, pageSize: 100, totalPages: 1, length: 0 });
      expect(far.body.data).toEqual([]);
    });

    it('status filters and totals agree', async () => {
      const accepted = await get('?status=accepted&pageSize=2');
      expectPageFields(accepted, 'top', { total: 3, page: 1, pageSize: 2, totalPages: 2, length: 2 });
      expect(accepted.body.data.map((qr: { id: string }) => qr.id)).toEqual(
        newestFirst(requestIds.slice(0, 3)).slice(0, 2),
      );
      const open = await get('?status=open');
      expectPageFields(open, 'top', { total: 4, page: 1, pageSize: 50, totalPages: 1, length: 4 });
    });

    it('a liquidity provider sees every open request, paginated the same way', async () => {
      const res = await h.http('GET', '/api/v1/quote-requests?pageSize=3&page=2', { apiKey: lp1.apiKey });
      expectPageFields(res, 'top', { total: 4, page: 2, pageSize: 3, totalPages: 2, length: 1 });
      expect(res.body.data.map((qr: { id: string }) => qr.id)).toEqual([requestIds[3]]);
    });
  });

  describe('GET /api/v1/quotes', () => {
    it('defaults to active quotes, page 1 of 50', async () => {
      const res = await h.http('GET', '/api/v1/quotes', { apiKey: mm.apiKey });
      // Active: lp1 on 3, 4 and lp2 on 3, 4, 5, 6.
      expectPageFields(res, 'data', { total: 6, page: 1, pageSize: 50, totalPages: 1, length: 6 });
      expect(res.body.data.quotes).toHaveLength(6);
      expect(res.body.data.quotes.every((q: { status: string }) => q.status === 'active')).toBe(true);
    });

    it('pageSize 2 and 3 cover the quotes exactly once', async () => {
      const all = (
        await h.http('GET', '/api/v1/quotes?pageSize=100', { apiKey: mm.apiKey })
      ).body.data.quotes.map((q: { id: string }) => q.id);
      expect(new Set(all).size).toBe(6);
      for (const [pageSize, totalPages] of [
        [2, 3],
        [3, 2],
      ] as const) {
        const seen: string[] = [];
        for (let page = 1; page <= totalPages; page++) {
          const res = await h.http('GET', `/api/v1/quotes?page=${page}&pageSize=${pageSize}`, {
            apiKey: mm.apiKey,
          });
          expectPageFields(res, 'data', { total: 6, page, pageSize, totalPages, length: pageSize });
          expect(res.body.data.quotes).toHaveLength(pageSize);
          seen.push(...res.body.data.quotes.map((q: { id: string }) => q.id));
        }
        expect(seen).toEqual(all);
      }
    });

    it('a page past the end is empty, with the right total', async () => {
      const res = await h.http('GET', '/api/v1/quotes?status=accepted&page=3&pageSize=2', {
        apiKey: mm.apiKey,
      });
      expectPageFields(res, 'data', { total: 3, page: 3, pageSize: 2, totalPages: 2, length: 0 });
      expect(res.body.data.quotes).toEqual([]);
    });

    it('a liquidity provider pages through its own quotes only', async () => {
      const res = await h.http('GET', '/api/v1/quotes?pageSize=3', { apiKey: lp2.apiKey });
      expectPageFields(res, 'data', { total: 4, page: 1, pageSize: 3, totalPages: 2, length: 3 });
      expect(
        res.body.data.quotes.every((q: { liquidityProviderId: string }) => q.liquidityProviderId === lp2.id),
      ).toBe(true);
      const byRequest = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestIds[3]}&pageSize=1`, {
        apiKey: mm.apiKey,
      });
      expectPageFields(byRequest, 'data', { total: 2, page: 1, pageSize: 1, totalPages: 2, length: 1 });
    });
  });

  describe('GET /api/v1/orders', () => {
    it('defaults to page 1 of 50, newest first', async () => {
      const res = await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey });
      expectPageFields(res, 'data', { total: 3, page: 1, pageSize: 50, totalPages: 1, length: 3 });
      expect(new Set(res.body.data.orders.map((o: { orderId: string }) => o.orderId))).toEqual(
        new Set(orderIds),
      );
    });

    it('pageSize 2: two pages covering every order once, then an empty page', async () => {
      const first = await h.http('GET', '/api/v1/orders?pageSize=2', { apiKey: mm.apiKey });
      const second = await h.http('GET', '/api/v1/orders?pageSize=2&page=2', { apiKey: mm.apiKey });
      const third = await h.http('GET', '/api/v1/orders?pageSize=2&page=3', { apiKey: mm.apiKey });
      expectPageFields(first, 'data', { total: 3, page: 1, pageSize: 2, totalPages: 2, length: 2 });
      expectPageFields(second, 'data', { total: 3, page: 2, pageSize: 2, totalPages: 2, length: 1 });
      expectPageFields(third, 'data', { total: 3, page: 3, pageSize: 2, totalPages: 2, length: 0 });
      expect(first.body.data.orders).toHaveLength(2);
      expect(second.body.data.orders).toHaveLength(1);
      expect(third.body.data.orders).toEqual([]);
      const seen = [...first.body.data.orders, ...second.body.data.orders].map(
        (o: { orderId: string }) => o.orderId,
      );
      expect(seen.sort()).toEqual([...orderIds].sort());
    });

    it('the liquidity provider side pages the orders it fills', async () => {
      const res = await h.http('GET', '/api/v1/orders?pageSize=3', { apiKey: lp1.apiKey });
      expectPageFields(res, 'data', { total: 3, page: 1, pageSize: 3, totalPages: 1, length: 3 });
      const none = await h.http('GET', '/api/v1/orders', { apiKey: lp2.apiKey });
      expectPageFields(none, 'data', { total: 0, page: 1, pageSize: 50, totalPages: 0, length: 0 });
    });
  });

  describe('GET /api/public/orders', () => {
    it('defaults to page 1 of 50', async () => {
      const res = await h.http('GET', '/api/public/orders');
      expectPageFields(res, 'top', { total: 3, page: 1, pageSize: 50, totalPages: 1, length: 3 });
      expect(res.body.status).toBe('success');
      expect(new Set(res.body.data.orders.map((o: { id: string }) => o.id))).toEqual(new Set(orderIds));
    });

    it('pageSize 2 and 3, and a page past the end', async () => {
      const p1 = await h.http('GET', '/api/public/orders?pageSize=2');
      const p2 = await h.http('GET', '/api/public/orders?pageSize=2&page=2');
      expectPageFields(p1, 'top', { total: 3, page: 1, pageSize: 2, totalPages: 2, length: 2 });
      expectPageFields(p2, 'top', { total: 3, page: 2, pageSize: 2, totalPages: 2, length: 1 });
      const seen = [...p1.body.data.orders, ...p2.body.data.orders].map((o: { id: string }) => o.id);
      expect(seen.sort()).toEqual([...orderIds].sort());
      const three = await h.http('GET', '/api/public/orders?pageSize=3');
      expectPageFields(three, 'top', { total: 3, page: 1, pageSize: 3, totalPages: 1, length: 3 });
      const past = await h.http('GET', '/api/public/orders?pageSize=3&page=2');
      expectPageFields(past, 'top', { total: 3, page: 2, pageSize: 3, totalPages: 1, length: 0 });
      expect(past.body.data.orders).toEqual([]);
    });

    it('address matches offerer or recipient, in any case', async () => {
      const mine = await h.http('GET', `/api/public/orders?address=${h.offerer.address.toLowerCase()}`);
      expectPageFields(mine, 'top', { total: 2, page: 1, pageSize: 50, totalPages: 1, length: 2 });
      expect(mine.body.data.orders.map((o: { id: string }) => o.id).sort()).toEqual(
        [orderIds[0], orderIds[1]].sort(),
      );
      expect(mine.body.data.orders.every((o: { offerer: string }) => o.offerer === h.offerer.address)).toBe(
        true,
      );

      const other = await h.http('GET', `/api/public/orders?address=${h.otherWallet.address}&pageSize=1`);
      expectPageFields(other, 'top', { total: 1, page: 1, pageSize: 1, totalPages: 1, length: 1 });
      expect(other.body.data.orders[0].id).toBe(orderIds[2]);

      const nobody = await h.http('GET', `/api/public/orders?address=0x${'12'.repeat(20)}`);
      expectPageFields(nobody, 'top', { total: 0, page: 1, pageSize: 50, totalPages: 0, length: 0 });
      expect(nobody.body.data.orders).toEqual([]);

      const paged = await h.http('GET', `/api/public/orders?address=${h.offerer.address}&pageSize=1&page=2`);
      expectPageFields(paged, 'top', { total: 2, page: 2, pageSize: 1, totalPages: 2, length: 1 });
    });
  });

  describe('out-of-range and unknown parameters', () => {
    const endpoints: Array<[string, () => string | undefined]> = [
      ['/api/v1/quote-requests', () => mm.apiKey],
      ['/api/v1/quotes', () => mm.apiKey],
      ['/api/v1/orders', () => mm.apiKey],
      ['/api/public/orders', () => undefined],
    ];
    const bad: Array<[string, string]> = [
      ['page=0', 'query.page'],
      ['page=-3', 'query.page'],
      ['page=abc', 'query.page'],
      ['page=1.5', 'query.page'],
      ['page=1000001', 'query.page'],
      ['pageSize=0', 'query.pageSize'],
      ['pageSize=-1', 'query.pageSize'],
      ['pageSize=101', 'query.pageSize'],
      ['pageSize=ten', 'query.pageSize'],
    ];

    it.each(endpoints)(
      '%s refuses out-of-range page and pageSize with 400 VALIDATION_ERROR',
      async (path, apiKey) => {
        for (const [query, field] of bad) {
          const res = await h.http('GET', `${path}?${query}`, { apiKey: apiKey() });
          expect({ query, status: res.status, code: res.body.code }).toEqual({
            query,
            status: 400,
            code: 'VALIDATION_ERROR',
          });
          expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
        }
        // The edges are accepted: not a silent clamp either way.
        const edge = await h.http('GET', `${path}?page=1&pageSize=100`, { apiKey: apiKey() });
        expect(edge.status).toBe(200);
        const meta =
          path === '/api/v1/quote-requests' || path === '/api/public/orders' ? edge.body : edge.body.data;
        expect(meta.pageSize).toBe(100);
        const one = await h.http('GET', `${path}?pageSize=1`, { apiKey: apiKey() });
        expect(one.status).toBe(200);
      },
    );

    it.each(endpoints)('%s refuses an unknown query parameter with 400 naming it', async (path, apiKey) => {
      const res = await h.http('GET', `${path}?limit=5`, { apiKey: apiKey() });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain('query.limit');
    });
  });

  // Runs last: it moves the shared clock.
  describe('timeWindow on quote requests', () => {
    const get = (query = '') => h.http('GET', `/api/v1/quote-requests${query}`, { apiKey: mm.apiKey });

    it('counts only requests created within the window, and the default window is 30 s', async () => {
      // Now is 6 s after the first request; request k was created k seconds after it.
      const one = await get('?timeWindow=1');
      expectPageFields(one, 'top', { total: 2, page: 1, pageSize: 50, totalPages: 1, length: 2 });
      expect(one.body.data.map((qr: { id: string }) => qr.id)).toEqual(newestFirst(requestIds.slice(5)));
      const three = await get('?timeWindow=3&pageSize=3');
      expectPageFields(three, 'top', { total: 4, page: 1, pageSize: 3, totalPages: 2, length: 3 });

      h.clock.advance(27); // now 33 s after the first: the default window starts at request 3
      const byDefault = await get();
      expectPageFields(byDefault, 'top', { total: 4, page: 1, pageSize: 50, totalPages: 1, length: 4 });
      expect(byDefault.body.data.map((qr: { id: string }) => qr.id)).toEqual(
        newestFirst(requestIds.slice(3)),
      );
      const wide = await get('?timeWindow=60');
      expectPageFields(wide, 'top', { total: 7, page: 1, pageSize: 50, totalPages: 1, length: 7 });

      h.clock.advance(4); // 37 s: nothing is within the default 30 s any more
      const empty = await get();
      expectPageFields(empty, 'top', { total: 0, page: 1, pageSize: 50, totalPages: 0, length: 0 });
      expect(empty.body.data).toEqual([]);
    });

    it('refuses a timeWindow out of range', async () => {
      for (const value of ['0', '-1', 'abc', '2592001']) {
        const res = await get(`?timeWindow=${value}`);
        expect({ value, status: res.status, code: res.body.code }).toEqual({
          value,
          status: 400,
          code: 'VALIDATION_ERROR',
        });
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain('query.timeWindow');
      }
    });
  });
});
