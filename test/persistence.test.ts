import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuoteRequest, postQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/** Everything lives in the database: a restart on the same SQLite file or PostgreSQL database loses nothing. */
describe('data survives a restart', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('keys, quote requests, quotes and orders read back identically after a restart', async () => {
    const mm = await h.createAccount('moneyMover', 'durable mm');
    const lp1 = await h.createAccount('liquidityProvider', 'durable lp one');
    const lp2 = await h.createAccount('liquidityProvider', 'durable lp two');

    const requestId = await createQuoteRequest(h, mm.apiKey, { inputAmount: '2500000' });
    const q1 = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp1.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '2490000' },
    });
    const q2 = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp2.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '2495000', validFor: 300 },
    });
    expect(q1.status).toBe(201);
    expect(q2.status).toBe(201);
    const { quoteId, orderId, typedData } = q2.body.data;
    const accepted = await h.http('POST', `/api/v1/quotes/${quoteId}/accept`, {
      apiKey: mm.apiKey,
      body: { quoteId },
    });
    expect(accepted.status).toBe(200);
    const signature = await h.offerer.signTypedData(typedData);
    const swap = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      body: { orderId, quoteId, signature },
    });
    expect(swap.status).toBe(201);

    const snapshot = async () => ({
      order: await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: mm.apiKey }),
      lpOrder: await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: lp2.apiKey }),
      orders: await h.http('GET', '/api/v1/orders?includeQuote=true', { apiKey: mm.apiKey }),
      request: await h.http('GET', `/api/v1/quote-requests/${requestId}`, { apiKey: mm.apiKey }),
      acceptedQuote: await h.http('GET', `/api/v1/quotes/${quoteId}`, { apiKey: mm.apiKey }),
      declinedQuote: await h.http('GET', `/api/v1/quotes/${q1.body.data.quoteId}`, { apiKey: lp1.apiKey }),
      declinedList: await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}&status=declined`, {
        apiKey: mm.apiKey,
      }),
      publicOrders: await h.http('GET', `/api/public/orders?address=${h.offerer.address}`),
    });
    const before = await snapshot();
    for (const response of Object.values(before)) expect(response.status).toBe(200);
    expect(before.order.body.data.orderId).toBe(orderId);
    expect(before.order.body.data.signature).toBe(signature);
    expect(before.request.body.data.quoteRequest.status).toBe('accepted');
    expect(before.declinedList.body.data.total).toBe(1);
    expect(before.publicOrders.body.data.orders.map((o: { id: string }) => o.id)).toContain(orderId);

    await h.restart();

    const after = await snapshot();
    for (const [name, response] of Object.entries(after)) {
      expect(response.status, name).toBe(200);
      expect(response.body, name).toEqual(before[name as keyof typeof before].body);
    }
    // The very same serialized bytes, not just an equal object.
    expect(JSON.stringify(after.order.body)).toBe(JSON.stringify(before.order.body));
    expect(after.publicOrders.body.data.orders.find((o: { id: string }) => o.id === orderId)).toMatchObject({
      id: orderId,
      status: 'created',
      offerer: h.offerer.address,
      recipient: h.otherWallet.address,
      inputAmount: '2500000',
      outputAmount: '2495000',
      source: 'order',
    });
    const anyPublic = await h.http('GET', '/api/public/orders');
    expect(anyPublic.body.data.orders.map((o: { id: string }) => o.id)).toContain(orderId);

    // The swap is still idempotent across the restart: the same request answers with the stored order.
    const again = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      body: { orderId, quoteId, signature },
    });
    expect(again.status).toBe(200);
    expect(again.body.data.order).toEqual(before.order.body.data);
    const orders = await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey });
    expect(orders.body.data.total).toBe(1);

    // The accepted request stays closed after the restart.
    const late = await h.http('POST', `/api/v1/quotes/${q1.body.data.quoteId}/accept`, {
      apiKey: mm.apiKey,
      body: { quoteId: q1.body.data.quoteId },
    });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('QUOTE_NOT_ACTIVE');
  });

  it('an unknown key is still refused after a restart, and new writes work', async () => {
    const mm = await h.createAccount('moneyMover', 'post-restart mm');
    await h.restart();
    const bogus = await h.http('GET', '/api/v1/orders', { apiKey: `${mm.apiKey.slice(0, -4)}AAAA` });
    expect(bogus.status).toBe(401);
    expect(bogus.body.code).toBe('UNAUTHORIZED');

    const created = await postQuoteRequest(h, mm.apiKey);
    await h.restart();
    const listed = await h.http('GET', '/api/v1/quote-requests', { apiKey: mm.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((qr: { id: string }) => qr.id)).toEqual([created.body.data.quoteId]);
  });
});
