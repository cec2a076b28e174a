import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, transferToken } from './support/chain-actors.ts';
import { createQuote, createQuoteRequest, expectError, quoteRequestBody } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { countQuoteRequests } from './support/quote-request-count.ts';

/**
 * The error codes of resources and their states (404, 409, 410, 422), produced by real requests over HTTP.
 * The rest of the table, and what is not covered, is in test/error-codes.test.ts.
 */
describe('error codes', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const requestCount = (apiKey: string) => countQuoteRequests(h, apiKey);

  describe('not found (404)', () => {
    it('ORDER_NOT_FOUND for an unknown order → params.id', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('GET', '/api/v1/orders/ord_01nosuchorder', { apiKey: mm.apiKey });
      expectError(res, 404, 'ORDER_NOT_FOUND', 'params.id');
    });

    it("ORDER_NOT_FOUND for another account's order (no existence leak)", async () => {
      const mm = await h.createAccount('moneyMover');
      const stranger = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const quote = await createQuote(h, lp.apiKey, requestId);
      await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey: mm.apiKey });
      const signature = await h.offerer.signTypedData(quote.typedData);
      const swap = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
      });
      expect(swap.status).toBe(201);
      expect((await h.http('GET', `/api/v1/orders/${quote.orderId}`, { apiKey: mm.apiKey })).status).toBe(
        200,
      );
      const res = await h.http('GET', `/api/v1/orders/${quote.orderId}`, { apiKey: stranger.apiKey });
      expectError(res, 404, 'ORDER_NOT_FOUND', 'params.id');
      const missing = await h.http('GET', '/api/v1/orders/ord_01nosuchorder', { apiKey: stranger.apiKey });
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(
        missing.body.details.map((d: { path: string }) => d.path),
      );
    });

    it('QUOTE_NOT_FOUND: unknown quote on get and accept → params.id; on swap → body.quoteId', async () => {
      const mm = await h.createAccount('moneyMover');
      expectError(
        await h.http('GET', '/api/v1/quotes/q_01nosuchquote', { apiKey: mm.apiKey }),
        404,
        'QUOTE_NOT_FOUND',
        'params.id',
      );
      expectError(
        await h.http('POST', '/api/v1/quotes/q_01nosuchquote/accept', { apiKey: mm.apiKey }),
        404,
        'QUOTE_NOT_FOUND',
        'params.id',
      );
      const swap = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: 'ord_01nosuchorder', quoteId: 'q_01nosuchquote', signature: `0x${'ab'.repeat(65)}` },
      });
      expectError(swap, 404, 'QUOTE_NOT_FOUND', 'body.quoteId');
    });

    it("QUOTE_NOT_FOUND for a quote on another money mover's request", async () => {
      const mm = await h.createAccount('moneyMover');
      const stranger = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const quote = await createQuote(h, lp.apiKey, await createQuoteRequest(h, mm.apiKey));
      expectError(
        await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey: stranger.apiKey }),
        404,
        'QUOTE_NOT_FOUND',
        'params.id',
      );
      const still = await h.http('GET', `/api/v1/quotes/${quote.quoteId}`, { apiKey: mm.apiKey });
      expect(still.body.data.quote.status).toBe('active');
    });

    it('QUOTE_REQUEST_NOT_FOUND: unknown request on get → params.id; on quote → body.quoteRequestId', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      expectError(
        await h.http('GET', '/api/v1/quote-requests/qr_01nosuchrequest', { apiKey: mm.apiKey }),
        404,
        'QUOTE_REQUEST_NOT_FOUND',
        'params.id',
      );
      const res = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: 'qr_01nosuchrequest', outputAmount: '990000' },
      });
      expectError(res, 404, 'QUOTE_REQUEST_NOT_FOUND', 'body.quoteRequestId');
      const mine = await h.http('GET', '/api/v1/quotes', { apiKey: lp.apiKey });
      expect(mine.body.data.total).toBe(0);
    });

    it("QUOTE_REQUEST_NOT_FOUND for another money mover's request", async () => {
      const mm = await h.createAccount('moneyMover');
      const stranger = await h.createAccount('moneyMover');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      expectError(
        await h.http('GET', `/api/v1/quote-requests/${requestId}`, { apiKey: stranger.apiKey }),
        404,
        'QUOTE_REQUEST_NOT_FOUND',
        'params.id',
      );
    });

    it('NOT_FOUND for an unknown route, with or without credentials', async () => {
      const mm = await h.createAccount('moneyMover');
      expectError(await h.http('GET', '/api/v1/no-such-thing'), 404, 'NOT_FOUND', 'url');
      expectError(
        await h.http('POST', '/api/v2/quote-requests', { apiKey: mm.apiKey, body: quoteRequestBody(h) }),
        404,
        'NOT_FOUND',
        'url',
      );
      expectError(await h.http('DELETE', '/api/v1/orders', { apiKey: mm.apiKey }), 404, 'NOT_FOUND', 'url');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });
  });

  describe('conflicts (409)', () => {
    it('QUOTE_NOT_ACTIVE: accepting a declined quote → params.id', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp1 = await h.createAccount('liquidityProvider');
      const lp2 = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const q1 = await createQuote(h, lp1.apiKey, requestId);
      const q2 = await createQuote(h, lp2.apiKey, requestId, '995000');
      const accepted = await h.http('POST', `/api/v1/quotes/${q2.quoteId}/accept`, {
        apiKey: mm.apiKey,
        body: { quoteId: q2.quoteId },
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data.declinedQuotes.map((q: { id: string }) => q.id)).toEqual([q1.quoteId]);
      const res = await h.http('POST', `/api/v1/quotes/${q1.quoteId}/accept`, {
        apiKey: mm.apiKey,
        body: { quoteId: q1.quoteId },
      });
      expectError(res, 409, 'QUOTE_NOT_ACTIVE', 'params.id');
      const declined = await h.http('GET', `/api/v1/quotes/${q1.quoteId}`, { apiKey: mm.apiKey });
      expect(declined.body.data.quote.status).toBe('declined');
      const request = await h.http('GET', `/api/v1/quote-requests/${requestId}`, { apiKey: mm.apiKey });
      expect(request.body.data.quoteRequest.acceptedQuoteId).toBe(q2.quoteId);
    });

    it('QUOTE_NOT_ACTIVE: executing a quote that was never accepted → body.quoteId', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const quote = await createQuote(h, lp.apiKey, await createQuoteRequest(h, mm.apiKey));
      const signature = await h.offerer.signTypedData(quote.typedData);
      const res = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
      });
      expectError(res, 409, 'QUOTE_NOT_ACTIVE', 'body.quoteId');
      expect((await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey })).body.data.total).toBe(0);
    });

    it('QUOTE_REQUEST_CLOSED: quoting an accepted request → body.quoteRequestId', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp1 = await h.createAccount('liquidityProvider');
      const lp2 = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const q1 = await createQuote(h, lp1.apiKey, requestId);
      expect(
        (await h.http('POST', `/api/v1/quotes/${q1.quoteId}/accept`, { apiKey: mm.apiKey })).status,
      ).toBe(200);
      const res = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp2.apiKey,
        body: { quoteRequestId: requestId, outputAmount: '999999' },
      });
      expectError(res, 409, 'QUOTE_REQUEST_CLOSED', 'body.quoteRequestId');
      const listed = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}&status=active`, {
        apiKey: mm.apiKey,
      });
      expect(listed.body.data.total).toBe(0);
      expect((await h.http('GET', '/api/v1/quotes', { apiKey: lp2.apiKey })).body.data.total).toBe(0);
    });

    it('QUOTE_REQUEST_CLOSED: accepting an active quote whose request has expired → params.id', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const quote = await createQuote(h, lp.apiKey, requestId, '990000', { validFor: 600 });
      h.clock.advance(h.config.quoteRequestTtlSeconds + 1);
      const res = await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey: mm.apiKey });
      expectError(res, 409, 'QUOTE_REQUEST_CLOSED', 'params.id');
      const request = await h.http('GET', `/api/v1/quote-requests/${requestId}`, { apiKey: mm.apiKey });
      expect(request.body.data.quoteRequest.status).toBe('expired');
      expect(request.body.data.quoteRequest.acceptedQuoteId).toBeNull();
    });

    it('QUOTE_REQUEST_CLOSED or QUOTE_NOT_ACTIVE: of two concurrent accepts on one request exactly one wins', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp1 = await h.createAccount('liquidityProvider');
      const lp2 = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const q1 = await createQuote(h, lp1.apiKey, requestId);
      const q2 = await createQuote(h, lp2.apiKey, requestId);
      const results = await Promise.all([
        h.http('POST', `/api/v1/quotes/${q1.quoteId}/accept`, { apiKey: mm.apiKey }),
        h.http('POST', `/api/v1/quotes/${q2.quoteId}/accept`, { apiKey: mm.apiKey }),
      ]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409]);
      const loser = results.find((r) => r.status === 409)!;
      // Which code depends on how far the loser got before the winner committed; both are "not yours to accept".
      expect(['QUOTE_REQUEST_CLOSED', 'QUOTE_NOT_ACTIVE']).toContain(loser.body.code);
      expect(loser.body.details.map((d: { path: string }) => d.path)).toContain('params.id');
      const winnerId = results[0]!.status === 200 ? q1.quoteId : q2.quoteId;
      const request = await h.http('GET', `/api/v1/quote-requests/${requestId}`, { apiKey: mm.apiKey });
      expect(request.body.data.quoteRequest.acceptedQuoteId).toBe(winnerId);
      const accepted = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}&status=accepted`, {
        apiKey: mm.apiKey,
      });
      expect(accepted.body.data.total).toBe(1);
    });

    it('IDEMPOTENCY_KEY_REUSED: same key with a different body → headers.idempotency-key', async () => {
      const mm = await h.createAccount('moneyMover');
      const headers = { 'idempotency-key': 'error-codes-reuse-1' };
      const first = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        headers,
        body: quoteRequestBody(h),
      });
      expect(first.status).toBe(201);
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        headers,
        body: quoteRequestBody(h, { inputAmount: '2000000' }),
      });
      expectError(res, 409, 'IDEMPOTENCY_KEY_REUSED', 'headers.idempotency-key');
      expect(await requestCount(mm.apiKey)).toBe(1);
    });

    it('CONFLICT: a second active quote by the same liquidity provider on one request → body.quoteRequestId', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const first = await createQuote(h, lp.apiKey, requestId);
      const res = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: requestId, outputAmount: '991000' },
      });
      expectError(res, 409, 'CONFLICT', 'body.quoteRequestId');
      const listed = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}`, { apiKey: mm.apiKey });
      expect(listed.body.data.total).toBe(1);
      expect(listed.body.data.quotes[0].id).toBe(first.quoteId);
    });
  });

  describe('QUOTE_EXPIRED (410)', () => {
    it('accepting a quote past its endTime → params.id, nothing accepted', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const quote = await createQuote(h, lp.apiKey, requestId);
      const nowSeconds = Math.floor(h.clock.now().getTime() / 1000);
      h.clock.advance(quote.quote.endTime - nowSeconds + 1);
      const res = await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, {
        apiKey: mm.apiKey,
        body: { quoteId: quote.quoteId },
      });
      expectError(res, 410, 'QUOTE_EXPIRED', 'params.id');
      const request = await h.http('GET', `/api/v1/quote-requests/${requestId}`, { apiKey: mm.apiKey });
      expect(request.body.data.quoteRequest.status).toBe('open');
      expect(request.body.data.quoteRequest.acceptedQuoteId).toBeNull();
      const read = await h.http('GET', `/api/v1/quotes/${quote.quoteId}`, { apiKey: mm.apiKey });
      expect(read.body.data.quote.status).toBe('expired');
    });

    it('executing an accepted quote past its endTime → body.quoteId, no order written', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const quote = await createQuote(h, lp.apiKey, await createQuoteRequest(h, mm.apiKey));
      expect(
        (await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey: mm.apiKey })).status,
      ).toBe(200);
      const signature = await h.offerer.signTypedData(quote.typedData);
      const nowSeconds = Math.floor(h.clock.now().getTime() / 1000);
      h.clock.advance(quote.quote.endTime - nowSeconds + 1);
      const res = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
      });
      expectError(res, 410, 'QUOTE_EXPIRED', 'body.quoteId');
      expect((await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey })).body.data.total).toBe(0);
      expectError(
        await h.http('GET', `/api/v1/orders/${quote.orderId}`, { apiKey: mm.apiKey }),
        404,
        'ORDER_NOT_FOUND',
        'params.id',
      );
    });
  });

  describe('INSUFFICIENT_BALANCE (422)', () => {
    it('an offerer without tokens → body.inputAmount, nothing stored', async () => {
      const mm = await h.createAccount('moneyMover');
      const pauper = privateKeyToAccount(generatePrivateKey()).address;
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { offerer: pauper, recipient: pauper }),
      });
      expectError(res, 422, 'INSUFFICIENT_BALANCE', 'body.inputAmount');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('a funded offerer asking for more than it holds → body.inputAmount', async () => {
      const mm = await h.createAccount('moneyMover');
      // The funded wallets hold 1,000,000 USDC (6 decimals); ask for one base unit more than ten times that.
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { inputAmount: (10_000_000n * 10n ** 6n + 1n).toString() }),
      });
      expectError(res, 422, 'INSUFFICIENT_BALANCE', 'body.inputAmount');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('a reading that did not cover the amount is never reused: a top-up counts at once', async () => {
      const mm = await h.createAccount('moneyMover');
      const fresh = privateKeyToAccount(generatePrivateKey()).address;
      const body = quoteRequestBody(h, { offerer: fresh, recipient: fresh, inputAmount: '1000000' });
      const before = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body });
      expectError(before, 422, 'INSUFFICIENT_BALANCE', 'body.inputAmount');
      await transferToken(h, h.chainA, h.usdcA, h.offerer, fresh, 1_000_000n);
      // Same instant on the server's clock: the earlier reading (0) is younger than BALANCE_CACHE_MS.
      const after = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body });
      expect(after.status).toBe(201);
    });

    it('a reading that covered the amount answers for BALANCE_CACHE_MS, then the chain is read again', async () => {
      const mm = await h.createAccount('moneyMover');
      const wallet = h.otherWallet;
      const held = await balanceOf(h, h.chainA, h.usdcA, wallet.address);
      // Half of it each: the offerer's open requests are judged together, so two halves still fit the reading.
      const body = quoteRequestBody(h, {
        offerer: wallet.address,
        recipient: wallet.address,
        inputAmount: (held / 2n).toString(),
      });
      expect((await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body })).status).toBe(201);
      await transferToken(h, h.chainA, h.usdcA, wallet, h.offerer.address, held);
      try {
        // The check is advisory (the deposit checks on chain again), so a covering reading may be reused.
        expect((await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body })).status).toBe(
          201,
        );
        h.clock.advance(h.config.balanceCacheMs / 1000);
        const later = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body });
        expectError(later, 422, 'INSUFFICIENT_BALANCE', 'body.inputAmount');
      } finally {
        await transferToken(h, h.chainA, h.usdcA, h.offerer, wallet.address, held);
      }
    });
  });
});
