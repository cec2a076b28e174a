import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestEventId, readFinalEventsAfter } from '../src/store/engine/events-store.ts';
import { acceptQuote, createQuote, createQuoteRequest, postQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/** Expiry is judged on the (manual) clock; the sweep only writes down what the clock already decided. */
describe('expiry of quote requests and quotes', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  beforeAll(async () => {
    // The background sweep stays out of the way: each test runs it by hand when it wants it.
    h = await startHarness({ expirySweepMs: 60_000 });
    mm = await h.createAccount('moneyMover', 'expiry mm');
  });
  afterAll(async () => {
    await h?.close();
  });

  async function createRequest(): Promise<string> {
    const created = await postQuoteRequest(h, mm.apiKey);
    expect(created.body.data.quoteRequest.status).toBe('open');
    return created.body.data.quoteId as string;
  }

  const requestStatus = async (id: string) => {
    const got = await h.http('GET', `/api/v1/quote-requests/${id}`, { apiKey: mm.apiKey });
    expect(got.status).toBe(200);
    return got.body.data.quoteRequest.status as string;
  };

  const quotesOf = async (requestId: string, status?: string) => {
    const query = status ? `&status=${status}` : '';
    const listed = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}${query}`, {
      apiKey: mm.apiKey,
    });
    expect(listed.status).toBe(200);
    return listed.body.data as { quotes: { id: string; status: string }[]; total: number };
  };

  it('a quote request expires after 120 s, before and after the sweep, and then takes no quotes', async () => {
    const lp = await h.createAccount('liquidityProvider', 'late lp');
    const requestId = await createRequest();
    const created = await h.http('GET', `/api/v1/quote-requests/${requestId}`, { apiKey: mm.apiKey });
    const expiresAt = Date.parse(created.body.data.quoteRequest.expiresAt);
    expect(expiresAt - Date.parse(created.body.data.quoteRequest.createdAt)).toBe(120_000);

    h.clock.advance(119);
    expect(await requestStatus(requestId)).toBe('open');

    h.clock.advance(2);
    // Not swept yet: the stored row still says open, the API already says expired.
    expect(await requestStatus(requestId)).toBe('expired');
    const openForLp = await h.http('GET', '/api/v1/quote-requests?timeWindow=3600', { apiKey: lp.apiKey });
    expect(openForLp.status).toBe(200);
    expect(openForLp.body.data.map((qr: { id: string }) => qr.id)).not.toContain(requestId);

    expect(await h.app.sweeper.sweep()).toBeGreaterThanOrEqual(1);
    expect(await requestStatus(requestId)).toBe('expired');
    expect(await h.app.sweeper.sweep()).toBe(0);
    expect(await requestStatus(requestId)).toBe('expired');

    const expiredList = await h.http('GET', '/api/v1/quote-requests?timeWindow=3600&status=expired', {
      apiKey: mm.apiKey,
    });
    expect(expiredList.body.data.map((qr: { id: string }) => qr.id)).toContain(requestId);

    const late = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '990000' },
    });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('QUOTE_REQUEST_CLOSED');
    expect(late.body.details[0].path).toBe('body.quoteRequestId');
    for (const status of ['active', 'expired', 'declined'])
      expect((await quotesOf(requestId, status)).total).toBe(0);
  });

  it('an unswept expired request also refuses quotes', async () => {
    const lp = await h.createAccount('liquidityProvider', 'unswept lp');
    const requestId = await createRequest();
    h.clock.advance(120);
    const late = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '990000' },
    });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('QUOTE_REQUEST_CLOSED');
    expect((await quotesOf(requestId, 'active')).total).toBe(0);
    expect((await quotesOf(requestId, 'expired')).total).toBe(0);
  });

  it('a quote lasts 60 s by default; validFor (10–600) changes it and anything else is refused', async () => {
    const requestId = await createRequest();
    const lp1 = await h.createAccount('liquidityProvider', 'lp default');
    const lp2 = await h.createAccount('liquidityProvider', 'lp short');
    const lp3 = await h.createAccount('liquidityProvider', 'lp long');

    for (const validFor of [5, 9, 601, 0, -10]) {
      const refused = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp1.apiKey,
        body: { quoteRequestId: requestId, outputAmount: '990000', validFor },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('VALIDATION_ERROR');
      expect(refused.body.details.map((d: { path: string }) => d.path)).toEqual(['body.validFor']);
    }
    expect((await quotesOf(requestId, 'active')).total).toBe(0);

    const nowSeconds = Math.floor(h.clock.now().getTime() / 1000);
    const byDefault = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp1.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '990000' },
    });
    expect(byDefault.status).toBe(201);
    expect(byDefault.body.data.quote.startTime).toBe(nowSeconds);
    expect(byDefault.body.data.quote.endTime).toBe(nowSeconds + 60);

    const short = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp2.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '991000', validFor: 10 },
    });
    expect(short.status).toBe(201);
    expect(short.body.data.quote.endTime - short.body.data.quote.startTime).toBe(10);

    const long = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp3.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '992000', validFor: 600 },
    });
    expect(long.status).toBe(201);
    expect(long.body.data.quote.endTime - long.body.data.quote.startTime).toBe(600);

    const fetched = await h.http('GET', `/api/v1/quotes/${long.body.data.quoteId}`, { apiKey: lp3.apiKey });
    expect(fetched.body.data.quote.endTime).toBe(long.body.data.quote.endTime);
    expect((await quotesOf(requestId, 'active')).total).toBe(3);

    // At 11 s only the 10 s quote has ended.
    h.clock.advance(11);
    const active = await quotesOf(requestId);
    expect(active.total).toBe(2);
    expect(active.quotes.map((q) => q.id).sort()).toEqual(
      [byDefault.body.data.quoteId, long.body.data.quoteId].sort(),
    );
    const expired = await quotesOf(requestId, 'expired');
    expect(expired.quotes.map((q) => q.id)).toEqual([short.body.data.quoteId]);
  });

  it('accepting an expired quote is 410 QUOTE_EXPIRED and leaves the request open', async () => {
    const requestId = await createRequest();
    const lp = await h.createAccount('liquidityProvider', 'expiring lp');
    const other = await h.createAccount('liquidityProvider', 'fresh lp');
    const quote = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '990000', validFor: 10 },
    });
    expect(quote.status).toBe(201);
    const quoteId = quote.body.data.quoteId as string;
    expect((await quotesOf(requestId)).quotes.map((q) => q.id)).toEqual([quoteId]);

    h.clock.advance(11);
    const refused = await h.http('POST', `/api/v1/quotes/${quoteId}/accept`, {
      apiKey: mm.apiKey,
      body: { quoteId },
    });
    expect(refused.status).toBe(410);
    expect(refused.body.code).toBe('QUOTE_EXPIRED');
    expect(refused.body.details[0].path).toBe('params.id');

    expect(await requestStatus(requestId)).toBe('open');
    const got = await h.http('GET', `/api/v1/quotes/${quoteId}`, { apiKey: mm.apiKey });
    expect(got.body.data.quote.status).toBe('expired');
    // Before the sweep: the default (active) list hides it, status=expired shows it.
    expect((await quotesOf(requestId)).total).toBe(0);
    expect((await quotesOf(requestId, 'expired')).quotes.map((q) => q.id)).toEqual([quoteId]);
    expect((await quotesOf(requestId, 'accepted')).total).toBe(0);

    // The request is still open, so a fresh quote can be accepted; the expired one is not "declined".
    const fresh = await h.http('POST', '/api/v1/quotes', {
      apiKey: other.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '991000' },
    });
    expect(fresh.status).toBe(201);
    const accepted = await h.http('POST', `/api/v1/quotes/${fresh.body.data.quoteId}/accept`, {
      apiKey: mm.apiKey,
      body: { quoteId: fresh.body.data.quoteId },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.declinedCount).toBe(0);

    await h.app.sweeper.sweep();
    expect((await quotesOf(requestId)).total).toBe(0);
    expect((await quotesOf(requestId, 'expired')).quotes.map((q) => q.id)).toEqual([quoteId]);
    expect((await quotesOf(requestId, 'declined')).total).toBe(0);
    expect((await quotesOf(requestId, 'accepted')).quotes.map((q) => q.id)).toEqual([
      fresh.body.data.quoteId,
    ]);
  });

  it('executing a swap of an accepted quote after its endTime is 410 QUOTE_EXPIRED and makes no order', async () => {
    const swapper = await h.createAccount('moneyMover', 'late swapper');
    const lp = await h.createAccount('liquidityProvider', 'swap lp');
    const requestId = await createQuoteRequest(h, swapper.apiKey);
    const { quoteId, orderId, typedData } = await createQuote(h, lp.apiKey, requestId);
    await acceptQuote(h, swapper.apiKey, quoteId);
    const signature = await h.offerer.signTypedData(typedData);

    h.clock.advance(61);
    await h.app.sweeper.sweep();
    const late = await h.http('POST', '/api/v1/swaps', {
      apiKey: swapper.apiKey,
      body: { orderId, quoteId, signature },
    });
    expect(late.status).toBe(410);
    expect(late.body.code).toBe('QUOTE_EXPIRED');
    expect(late.body.details[0].path).toBe('body.quoteId');

    const orders = await h.http('GET', '/api/v1/orders', { apiKey: swapper.apiKey });
    expect(orders.status).toBe(200);
    expect(orders.body.data.total).toBe(0);
    const order = await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: swapper.apiKey });
    expect(order.status).toBe(404);
    expect(order.body.code).toBe('ORDER_NOT_FOUND');
    const lpOrders = await h.http('GET', '/api/v1/orders', { apiKey: lp.apiKey });
    expect(lpOrders.body.data.total).toBe(0);
  });

  it('a swap within the quote validity still succeeds (the boundary is endTime)', async () => {
    const swapper = await h.createAccount('moneyMover', 'timely swapper');
    const lp = await h.createAccount('liquidityProvider', 'timely lp');
    const requestId = await createQuoteRequest(h, swapper.apiKey);
    const { quoteId, orderId, typedData } = await createQuote(h, lp.apiKey, requestId);
    await acceptQuote(h, swapper.apiKey, quoteId);
    h.clock.advance(58);
    await h.app.sweeper.sweep();
    const swap = await h.http('POST', '/api/v1/swaps', {
      apiKey: swapper.apiKey,
      body: { orderId, quoteId, signature: await h.offerer.signTypedData(typedData) },
    });
    expect(swap.status).toBe(201);
    expect(swap.body.data.orderId).toBe(orderId);
  });
});

/** A burst of requests that all expire together: the sweep drains it in batches, one event per row, none twice. */
describe('expiry of a backlog larger than one batch', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      expirySweepMs: 60_000,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('1,100 requests and 600 quotes expire in one sweep, each with exactly one event', async () => {
    const mm = await h.createAccount('moneyMover', 'backlog mm');
    const lp = await h.createAccount('liquidityProvider', 'backlog lp');
    const requestIds: string[] = [];
    for (let i = 0; i < 1_100; i++) requestIds.push(await createQuoteRequest(h, mm.apiKey));
    const quoteIds: string[] = [];
    for (const id of requestIds.slice(0, 600)) quoteIds.push((await createQuote(h, lp.apiKey, id)).quoteId);
    const before = await latestEventId(h.app.database.db);

    h.clock.advance(121);
    expect(await h.app.sweeper.sweep()).toBe(1_700);
    expect(await h.app.sweeper.sweep()).toBe(0);

    const { events } = await readFinalEventsAfter(h.app.database.db, before, 10_000);
    const expiredRequests = events
      .filter((e) => e.type === 'quoteRequest.expired')
      .map((e) => (e.data as { id: string }).id);
    const expiredQuotes = events
      .filter((e) => e.type === 'quote.expired')
      .map((e) => (e.data as { id: string }).id);
    expect(expiredRequests.sort()).toEqual([...requestIds].sort());
    expect(expiredQuotes.sort()).toEqual([...quoteIds].sort());
    const listed = await h.http('GET', '/api/v1/quote-requests?timeWindow=3600&status=open', {
      apiKey: mm.apiKey,
    });
    expect(listed.body.data).toEqual([]);
    // 1,700 requests in sequence, each quote also summing the LP's open promises: minutes on a loaded machine.
  }, 180_000);
});
