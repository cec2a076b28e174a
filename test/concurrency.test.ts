import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptQuote, createQuote, createQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/** Races over real HTTP: the database, not luck, decides who wins. */
describe('concurrent accepts and swaps', () => {
  let h: Harness;
  beforeAll(async () => {
    // 50-way races from one key would otherwise run into the 100/min API-key limit.
    h = await startHarness({ rateLimits: { apiKey: 10_000, session: 60, ip: 10_000 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('of 50 concurrent accepts of different quotes on one request exactly one wins', async () => {
    const mm = await h.createAccount('moneyMover', 'racing mm');
    const requestId = await createQuoteRequest(h, mm.apiKey);

    const lps = [];
    for (let i = 0; i < 50; i++) lps.push(await h.createAccount('liquidityProvider', `lp ${i}`));
    const quoteIds: string[] = [];
    for (const [i, lp] of lps.entries()) {
      const quote = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: requestId, outputAmount: String(990_000 + i) },
      });
      expect(quote.status).toBe(201);
      quoteIds.push(quote.body.data.quoteId as string);
    }
    expect(new Set(quoteIds).size).toBe(50);

    const active = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}&status=active`, {
      apiKey: mm.apiKey,
    });
    expect(active.status).toBe(200);
    expect(active.body.data.total).toBe(50);

    const results = await Promise.all(
      quoteIds.map((id) =>
        h.http('POST', `/api/v1/quotes/${id}/accept`, { apiKey: mm.apiKey, body: { quoteId: id } }),
      ),
    );

    const winners = results.flatMap((r, i) => (r.status === 200 ? [{ r, id: quoteIds[i]! }] : []));
    const losers = results.filter((r) => r.status !== 200);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(49);
    for (const loser of losers) {
      expect(loser.status).toBe(409);
      expect(['QUOTE_REQUEST_CLOSED', 'QUOTE_NOT_ACTIVE']).toContain(loser.body.code);
      expect(loser.body.details[0].path).toBe('params.id');
    }
    const winner = winners[0]!;
    expect(winner.r.body.data.acceptedQuote.id).toBe(winner.id);
    expect(winner.r.body.data.acceptedQuote.status).toBe('accepted');
    expect(winner.r.body.data.declinedCount).toBe(49);
    expect(winner.r.body.data.quoteRequest.status).toBe('accepted');
    expect(winner.r.body.data.quoteRequest.acceptedQuoteId).toBe(winner.id);

    const accepted = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}&status=accepted`, {
      apiKey: mm.apiKey,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.total).toBe(1);
    expect(accepted.body.data.quotes[0].id).toBe(winner.id);

    const declined = await h.http(
      'GET',
      `/api/v1/quotes?quoteRequestId=${requestId}&status=declined&pageSize=100`,
      {
        apiKey: mm.apiKey,
      },
    );
    expect(declined.status).toBe(200);
    expect(declined.body.data.total).toBe(49);
    expect(declined.body.data.quotes.map((q: { id: string }) => q.id)).not.toContain(winner.id);

    const stillActive = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}`, {
      apiKey: mm.apiKey,
    });
    expect(stillActive.body.data.total).toBe(0);

    const request = await h.http('GET', `/api/v1/quote-requests/${requestId}`, { apiKey: mm.apiKey });
    expect(request.status).toBe(200);
    expect(request.body.data.quoteRequest.status).toBe('accepted');
    expect(request.body.data.quoteRequest.acceptedQuoteId).toBe(winner.id);
  });

  it('50 concurrent identical swaps of one signed quote create exactly one order', async () => {
    const mm = await h.createAccount('moneyMover', 'swapping mm');
    const lp = await h.createAccount('liquidityProvider', 'swap lp');
    const requestId = await createQuoteRequest(h, mm.apiKey);
    const quote = await createQuote(h, lp.apiKey, requestId, '995000');
    const { quoteId, orderId, typedData } = quote;
    await acceptQuote(h, mm.apiKey, quoteId);
    const signature = await h.offerer.signTypedData(typedData);

    const before = await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey });
    expect(before.body.data.total).toBe(0);

    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        h.http('POST', '/api/v1/swaps', { apiKey: mm.apiKey, body: { orderId, quoteId, signature } }),
      ),
    );
    for (const r of results) {
      expect([200, 201]).toContain(r.status);
      expect(r.body.data.orderId).toBe(orderId);
      expect(r.body.data.blockchainOrderId).toBe(quote.quote.signingHash);
    }
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(49);

    const orders = await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey });
    expect(orders.status).toBe(200);
    expect(orders.body.data.total).toBe(1);
    expect(orders.body.data.orders).toHaveLength(1);
    expect(orders.body.data.orders[0].orderId).toBe(orderId);
    expect(orders.body.data.orders[0].status).toBe('created');

    const lpOrders = await h.http('GET', '/api/v1/orders', { apiKey: lp.apiKey });
    expect(lpOrders.body.data.total).toBe(1);
  });
});
