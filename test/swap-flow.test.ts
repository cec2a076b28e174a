import { hashTypedData } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

describe('the whole swap flow over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('request → two quotes → accept one → sign → execute → order', async () => {
    const mm = await h.createAccount('moneyMover');
    const lp1 = await h.createAccount('liquidityProvider', 'lp one');
    const lp2 = await h.createAccount('liquidityProvider', 'lp two');

    const created = await postQuoteRequest(h, mm.apiKey, { recipient: h.otherWallet.address.toLowerCase() });
    const requestId = created.body.data.quoteId as string;
    expect(requestId).toMatch(/^qr_/);
    expect(created.body.data.quoteRequest.recipient).toBe(h.otherWallet.address);

    const q1 = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp1.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '990000' },
    });
    const q2 = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp2.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '995000' },
    });
    expect(q1.status).toBe(201);
    expect(q2.status).toBe(201);
    expect(q2.body.data.quote.status).toBe('active');

    const listed = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}`, { apiKey: mm.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data.total).toBe(2);

    const best = q2.body.data;
    const accepted = await h.http('POST', `/api/v1/quotes/${best.quoteId}/accept`, {
      apiKey: mm.apiKey,
      body: { quoteId: best.quoteId },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.declinedCount).toBe(1);
    expect(accepted.body.data.declinedQuotes[0].id).toBe(q1.body.data.quoteId);
    expect(accepted.body.data.acceptedQuote.status).toBe('accepted');

    const signature = await h.offerer.signTypedData(best.typedData);
    const swap = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      body: { orderId: best.orderId, quoteId: best.quoteId, signature },
    });
    expect(swap.status).toBe(201);
    const expectedHash = hashTypedData(best.typedData);
    expect(swap.body.data.blockchainOrderId).toBe(best.quote.signingHash);
    expect(swap.body.data.blockchainOrderId).toBe(expectedHash);

    const order = await h.http('GET', `/api/v1/orders/${best.orderId}`, { apiKey: mm.apiKey });
    expect(order.status).toBe(200);
    expect(order.body.data.status).toBe('created');
    expect(order.body.data.blockchainOrderId).toBe(expectedHash);
    // The signed terms an integrator needs to plan around: who fills, and by when (decimal unix seconds).
    const { filler, openDeadline, fillDeadline } = best.typedData.message;
    expect(order.body.data.details).toMatchObject({
      filler,
      openDeadline: String(openDeadline),
      fillDeadline: String(fillDeadline),
    });

    const again = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      body: { orderId: best.orderId, quoteId: best.quoteId, signature },
    });
    expect(again.status).toBe(200);
    expect(again.body.data.orderId).toBe(best.orderId);

    const pub = await h.http('GET', '/api/public/orders');
    expect(pub.status).toBe(200);
    expect(pub.body.data.orders[0].id).toBe(best.orderId);
    expect(pub.headers.get('ratelimit-limit')).toBe('120');
  });
});
