import fs from 'node:fs';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { createChainRegistry } from '../src/chains/chain-registry.ts';
import { balanceOf, transferToken } from './support/chain-actors.ts';
import { createQuote, createQuoteRequest, expectError, quoteRequestBody } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/**
 * Every code of the error table in docs/errors.md, produced by a real request over HTTP, with its status and a
 * details[].path naming the offending field. Where a refusal must write nothing, the API is read back.
 *
 * Not covered here:
 * - RATE_LIMITED lives in test/rate-limit.test.ts (it needs 100+ requests on one credential).
 * - STREAM_LIMIT belongs to the streaming issue (SSE / WebSocket), tested with the streams.
 * - INTERNAL_ERROR cannot be triggered without breaking the server on purpose, so it is not tested here
 *   (no clean way found: every input path checked in this file and bad-input.test.ts answers below 500).
 */

const NOT_A_TOKEN = '0x000000000000000000000000000000000000dEaD';

describe('error codes', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  async function requestCount(apiKey: string): Promise<number> {
    const res = await h.http('GET', '/api/v1/quote-requests?timeWindow=2592000', { apiKey });
    expect(res.status).toBe(200);
    return res.body.total as number;
  }

  describe('VALIDATION_ERROR (400)', () => {
    const badAmounts: Array<[string, string]> = [
      ['a fraction', '1.5'],
      ['a negative number', '-1'],
      ['an exponent', '1e6'],
      ['a leading plus', '+1'],
      ['zero', '0'],
      ['a leading zero', '01'],
      ['79 digits', '1'.repeat(79)],
      ['2^256', (2n ** 256n).toString()],
      ['an empty string', ''],
      ['whitespace around it', ' 1000000 '],
      ['hex', '0x10'],
    ];
    it.each(badAmounts)(
      'inputAmount as %s → body.inputAmount, nothing stored',
      async (_label, inputAmount) => {
        const mm = await h.createAccount('moneyMover');
        const res = await h.http('POST', '/api/v1/quote-requests', {
          apiKey: mm.apiKey,
          body: quoteRequestBody(h, { inputAmount }),
        });
        expectError(res, 400, 'VALIDATION_ERROR', 'body.inputAmount');
        expect(await requestCount(mm.apiKey)).toBe(0);
      },
    );

    it('2^256-1 passes amount validation (it fails later on the balance, not on the format)', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { inputAmount: (2n ** 256n - 1n).toString() }),
      });
      expectError(res, 422, 'INSUFFICIENT_BALANCE', 'body.inputAmount');
    });

    it('an amount sent as a JSON number → body.inputAmount', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { inputAmount: 1000000 }),
      });
      expectError(res, 400, 'VALIDATION_ERROR', 'body.inputAmount');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it.each([
      'recipient',
      'offerer',
      'inputToken',
      'outputToken',
      'inputAmount',
      'inputChain',
      'outputChain',
    ])('missing %s → body.<field>', async (field) => {
      const mm = await h.createAccount('moneyMover');
      const body = quoteRequestBody(h);
      delete body[field];
      const res = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body });
      expectError(res, 400, 'VALIDATION_ERROR', `body.${field}`);
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('an unknown extra field → body.<field>', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { slippage: '1' }),
      });
      expectError(res, 400, 'VALIDATION_ERROR', 'body.slippage');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('a malformed address → body.recipient', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { recipient: '0x1234' }),
      });
      expectError(res, 400, 'VALIDATION_ERROR', 'body.recipient');
    });

    it('the same chain on both sides → body.outputChain', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { outputChain: h.chainA, outputToken: h.usdcA }),
      });
      expectError(res, 400, 'VALIDATION_ERROR', 'body.outputChain');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('bad outputAmount and validFor on a quote → body.outputAmount / body.validFor', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const amount = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: requestId, outputAmount: '-5' },
      });
      expectError(amount, 400, 'VALIDATION_ERROR', 'body.outputAmount');
      const validFor = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: requestId, outputAmount: '990000', validFor: 5 },
      });
      expectError(validFor, 400, 'VALIDATION_ERROR', 'body.validFor');
      const listed = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}`, { apiKey: mm.apiKey });
      expect(listed.body.data.total).toBe(0);
    });

    it('accept with a body quoteId that differs from the path id → body.quoteId', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const quote = await createQuote(h, lp.apiKey, requestId);
      const res = await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, {
        apiKey: mm.apiKey,
        body: { quoteId: 'q_someotherquote' },
      });
      expectError(res, 400, 'VALIDATION_ERROR', 'body.quoteId');
      const still = await h.http('GET', `/api/v1/quotes/${quote.quoteId}`, { apiKey: mm.apiKey });
      expect(still.body.data.quote.status).toBe('active');
    });
  });

  describe('INVALID_TOKEN / INVALID_CHAIN (400)', () => {
    it('an input token not on the input chain → INVALID_TOKEN body.inputToken', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { inputToken: NOT_A_TOKEN }),
      });
      expectError(res, 400, 'INVALID_TOKEN', 'body.inputToken');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('an output token not on the output chain → INVALID_TOKEN body.outputToken', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { outputToken: NOT_A_TOKEN.toLowerCase() }),
      });
      expectError(res, 400, 'INVALID_TOKEN', 'body.outputToken');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('an unknown input chain → INVALID_CHAIN body.inputChain', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { inputChain: 'atlantis' }),
      });
      expectError(res, 400, 'INVALID_CHAIN', 'body.inputChain');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('an unknown output chain → INVALID_CHAIN body.outputChain', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { outputChain: 'atlantis' }),
      });
      expectError(res, 400, 'INVALID_CHAIN', 'body.outputChain');
    });
  });

  describe('INVALID_SIGNATURE (400)', () => {
    async function acceptedQuote() {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const quote = await createQuote(h, lp.apiKey, requestId);
      const accepted = await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, {
        apiKey: mm.apiKey,
        body: { quoteId: quote.quoteId },
      });
      expect(accepted.status).toBe(200);
      return { mm, lp, quote };
    }

    async function expectNoOrder(apiKey: string, orderId: string) {
      const list = await h.http('GET', '/api/v1/orders', { apiKey });
      expect(list.status).toBe(200);
      expect(list.body.data.total).toBe(0);
      expect(list.body.data.orders).toEqual([]);
      const one = await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey });
      expectError(one, 404, 'ORDER_NOT_FOUND', 'params.id');
    }

    it('a swap signed by another wallet → body.signature, no order written', async () => {
      const { mm, quote } = await acceptedQuote();
      const signature = await h.otherWallet.signTypedData(quote.typedData);
      const res = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
      });
      expectError(res, 400, 'INVALID_SIGNATURE', 'body.signature');
      await expectNoOrder(mm.apiKey, quote.orderId);
    });

    it('a signature over altered typed data (outputAmount changed) → body.signature, no order written', async () => {
      const { mm, quote } = await acceptedQuote();
      const altered = {
        ...quote.typedData,
        message: {
          ...quote.typedData.message,
          outputAmount: (BigInt(quote.typedData.message.outputAmount) + 1n).toString(),
        },
      };
      const signature = await h.offerer.signTypedData(altered);
      const res = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
      });
      expectError(res, 400, 'INVALID_SIGNATURE', 'body.signature');
      await expectNoOrder(mm.apiKey, quote.orderId);
    });

    it('a well-formed but meaningless signature → body.signature, no order written', async () => {
      const { mm, quote } = await acceptedQuote();
      const res = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: quote.orderId, quoteId: quote.quoteId, signature: `0x${'ab'.repeat(65)}` },
      });
      expectError(res, 400, 'INVALID_SIGNATURE', 'body.signature');
      await expectNoOrder(mm.apiKey, quote.orderId);
    });
  });

  describe('UNAUTHORIZED (401)', () => {
    it('no credentials → headers.x-api-key', async () => {
      const res = await h.http('GET', '/api/v1/quote-requests');
      expectError(res, 401, 'UNAUTHORIZED', 'headers.x-api-key');
    });

    it('an unknown API key → headers.x-api-key, and nothing is written', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: 'fry_not-a-real-key',
        body: quoteRequestBody(h),
      });
      expectError(res, 401, 'UNAUTHORIZED', 'headers.x-api-key');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('a revoked API key → headers.x-api-key', async () => {
      const account = await h.app.accounts.createAccount({
        type: 'moneyMover',
        name: 'revoked',
        address: null,
      });
      const { apiKey, key } = await h.app.accounts.createApiKey(account.id);
      expect((await h.http('GET', '/api/v1/orders', { apiKey })).status).toBe(200);
      await h.app.accounts.revokeApiKey(key.id);
      const res = await h.http('GET', '/api/v1/orders', { apiKey });
      expectError(res, 401, 'UNAUTHORIZED', 'headers.x-api-key');
    });

    it('an unknown bearer session → headers.authorization', async () => {
      const res = await h.http('GET', '/api/v1/orders', { bearer: 'fsn_not-a-session' });
      expectError(res, 401, 'UNAUTHORIZED', 'headers.authorization');
    });

    it('a sign-in message signed by another wallet → body.signature, no session', async () => {
      const nonce = await h.http('GET', '/auth/nonce');
      expect(nonce.status).toBe(200);
      const message = createSiweMessage({
        domain: 'ferry.test',
        address: h.offerer.address,
        uri: 'https://ferry.test',
        version: '1',
        chainId: h.registry.chains[0]!.chainId,
        nonce: nonce.body.nonce,
      });
      const signature = await h.otherWallet.signMessage({ message });
      const res = await h.http('POST', '/auth/verify', {
        body: { message, signature, address: h.offerer.address },
      });
      expectError(res, 401, 'UNAUTHORIZED', 'body.signature');
    });
  });

  describe('FORBIDDEN (403)', () => {
    it('a liquidity provider creating a quote request, nothing written', async () => {
      const lp = await h.createAccount('liquidityProvider');
      const before = await h.http('GET', '/api/v1/quote-requests?status=open&timeWindow=86400', {
        apiKey: lp.apiKey,
      });
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: lp.apiKey,
        body: quoteRequestBody(h),
      });
      expectError(res, 403, 'FORBIDDEN', 'headers');
      const after = await h.http('GET', '/api/v1/quote-requests?status=open&timeWindow=86400', {
        apiKey: lp.apiKey,
      });
      expect(after.body.total).toBe(before.body.total);
    });

    it('a money mover creating a quote', async () => {
      const mm = await h.createAccount('moneyMover');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const res = await h.http('POST', '/api/v1/quotes', {
        apiKey: mm.apiKey,
        body: { quoteRequestId: requestId, outputAmount: '990000' },
      });
      expectError(res, 403, 'FORBIDDEN', 'headers');
      const listed = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}`, { apiKey: mm.apiKey });
      expect(listed.body.data.total).toBe(0);
    });

    it('a signed-in wallet naming another offerer → body.offerer', async () => {
      const nonce = await h.http('GET', '/auth/nonce');
      const message = createSiweMessage({
        domain: 'ferry.test',
        address: h.offerer.address,
        uri: 'https://ferry.test',
        version: '1',
        chainId: h.registry.chains[0]!.chainId,
        nonce: nonce.body.nonce,
      });
      const signature = await h.offerer.signMessage({ message });
      const verified = await h.http('POST', '/auth/verify', {
        body: { message, signature, address: h.offerer.address },
      });
      expect(verified.status).toBe(200);
      const bearer = verified.body.session.token as string;
      const before = await h.http('GET', '/api/v1/quote-requests?timeWindow=86400', { bearer });
      const res = await h.http('POST', '/api/v1/quote-requests', {
        bearer,
        body: quoteRequestBody(h, { offerer: h.otherWallet.address }),
      });
      expectError(res, 403, 'FORBIDDEN', 'body.offerer');
      const after = await h.http('GET', '/api/v1/quote-requests?timeWindow=86400', { bearer });
      expect(after.body.total).toBe(before.body.total);
    });
  });

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
      const body = quoteRequestBody(h, {
        offerer: wallet.address,
        recipient: wallet.address,
        inputAmount: held.toString(),
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

  describe('economic bounds', () => {
    /** Events addressed to an account (the sweeper writes others meanwhile, so not the newest id). */
    async function eventsOf(accountId: string): Promise<number> {
      const rows = await h.app.database.db
        .selectFrom('events')
        .select('id')
        .where('account_ids', 'like', `%${accountId}%`)
        .execute();
      return rows.length;
    }
    async function quotesOf(requestId: string): Promise<number> {
      const rows = await h.app.database.db
        .selectFrom('quotes')
        .select('id')
        .where('quote_request_id', '=', requestId)
        .execute();
      return rows.length;
    }

    it.each([
      ['1 base unit', '1'],
      ['one base unit under the minimum', '999999'],
    ])(
      'AMOUNT_TOO_SMALL: inputAmount of %s → body.inputAmount naming the minimum, nothing stored',
      async (_l, inputAmount) => {
        const mm = await h.createAccount('moneyMover');
        const res = await h.http('POST', '/api/v1/quote-requests', {
          apiKey: mm.apiKey,
          body: quoteRequestBody(h, { inputAmount }),
        });
        expectError(res, 400, 'AMOUNT_TOO_SMALL', 'body.inputAmount');
        expect(res.body.details).toHaveLength(1);
        expect(res.body.details[0].message).toContain('1000000');
        expect(await requestCount(mm.apiKey)).toBe(0);
        expect(await eventsOf(mm.id)).toBe(0);
      },
    );

    it('the minimum itself is accepted, and the public chain list tells it', async () => {
      const chains = await h.http('GET', '/api/public/chains');
      const usdc = chains.body.data.chains
        .find((c: { name: string }) => c.name === h.chainA)
        .tokens.find((t: { symbol: string }) => t.symbol === 'USDC');
      expect(usdc.minAmount).toBe('1000000');
      const mm = await h.createAccount('moneyMover');
      await createQuoteRequest(h, mm.apiKey, { inputAmount: usdc.minAmount });
    });

    it('dust with another bad field → VALIDATION_ERROR listing both', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { inputAmount: '5', recipient: `0x${'0'.repeat(40)}` }),
      });
      expectError(res, 400, 'VALIDATION_ERROR', 'body.recipient');
      expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
        'body.inputAmount',
        'body.recipient',
      ]);
    });

    const reserved: Array<[string, (h: Harness) => string]> = [
      ['the zero address', () => `0x${'0'.repeat(40)}`],
      ['the escrow of the input chain', (h) => h.registry.chain(h.chainA)!.contracts.escrow],
      [
        'the escrow of the output chain (lowercase)',
        (h) => h.registry.chain(h.chainB)!.contracts.escrow.toLowerCase(),
      ],
      ['the fill contract of the output chain', (h) => h.registry.chain(h.chainB)!.contracts.fill],
      ['the fill contract of the input chain', (h) => h.registry.chain(h.chainA)!.contracts.fill],
      ['the messenger of the input chain', (h) => h.registry.chain(h.chainA)!.contracts.messenger!],
      ['the output token', (h) => h.usdcB],
      [
        'a token of another chain',
        (h) => h.registry.chain(h.chainA)!.tokens.find((t) => t.symbol === 'USDT')!.address,
      ],
    ];
    it.each(reserved)(
      'recipient %s → VALIDATION_ERROR body.recipient, nothing stored',
      async (_label, pick) => {
        const recipient = pick(h);
        expect(recipient).toMatch(/^0x[0-9a-fA-F]{40}$/);
        const mm = await h.createAccount('moneyMover');
        const res = await h.http('POST', '/api/v1/quote-requests', {
          apiKey: mm.apiKey,
          body: quoteRequestBody(h, { recipient }),
        });
        expectError(res, 400, 'VALIDATION_ERROR', 'body.recipient');
        expect(res.body.details).toHaveLength(1);
        expect(await requestCount(mm.apiKey)).toBe(0);
        expect(await eventsOf(mm.id)).toBe(0);
      },
    );

    it.each([
      ['2^256-1', (2n ** 256n - 1n).toString()],
      ['one base unit over 10 % above the input', '1100001'],
    ])(
      'a quote of %s on a 1 USDC request → VALIDATION_ERROR body.outputAmount, nothing stored',
      async (_l, outputAmount) => {
        const mm = await h.createAccount('moneyMover');
        const lp = await h.createAccount('liquidityProvider');
        const requestId = await createQuoteRequest(h, mm.apiKey);
        const res = await h.http('POST', '/api/v1/quotes', {
          apiKey: lp.apiKey,
          body: { quoteRequestId: requestId, outputAmount },
        });
        expectError(res, 400, 'VALIDATION_ERROR', 'body.outputAmount');
        expect(res.body.details[0].message).toContain('1000 bps');
        expect(await quotesOf(requestId)).toBe(0);
        expect(await eventsOf(lp.id)).toBe(0);
      },
    );

    it('a quote exactly at the premium ceiling (10 % above) is accepted', async () => {
      const mm = await h.createAccount('moneyMover');
      const lp = await h.createAccount('liquidityProvider');
      const requestId = await createQuoteRequest(h, mm.apiKey);
      await createQuote(h, lp.apiKey, requestId, '1100000');
    });

    it('INSUFFICIENT_BALANCE: a quote the fill address cannot cover → body.outputAmount, nothing stored; a top-up counts at once', async () => {
      const mm = await h.createAccount('moneyMover');
      const filler = privateKeyToAccount(generatePrivateKey()).address;
      const lp = await h.createAccount('liquidityProvider', 'empty lp', filler);
      const requestId = await createQuoteRequest(h, mm.apiKey);
      const res = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: requestId, outputAmount: '990000' },
      });
      expectError(res, 422, 'INSUFFICIENT_BALANCE', 'body.outputAmount');
      expect(res.body.details[0].message).toContain(h.chainB);
      expect(await quotesOf(requestId)).toBe(0);
      expect(await eventsOf(lp.id)).toBe(0);

      // Funded on the input chain only: still refused (the output chain is what counts).
      await transferToken(h, h.chainA, h.usdcA, h.offerer, filler, 990_000n);
      const wrongChain = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: requestId, outputAmount: '990000' },
      });
      expectError(wrongChain, 422, 'INSUFFICIENT_BALANCE', 'body.outputAmount');

      // Same instant on the server's clock: the non-covering reading is not reused.
      await transferToken(h, h.chainB, h.usdcB, h.offerer, filler, 990_000n);
      await createQuote(h, lp.apiKey, requestId, '990000');
      expect(await quotesOf(requestId)).toBe(1);
    });

    it("SERVICE_UNAVAILABLE: the output chain's RPC down at quote time → 503 with Retry-After, nothing stored", async () => {
      // A second instance on the same database whose registry points the output chain at a closed port.
      const file = JSON.parse(fs.readFileSync(h.registryFile, 'utf8'));
      file.chains.find((c: { name: string }) => c.name === h.chainB).rpcUrl = 'http://127.0.0.1:1';
      const app = await createApp({ config: h.config, registry: createChainRegistry(file), clock: h.clock });
      const baseUrl = await app.listen();
      try {
        const mm = await h.createAccount('moneyMover');
        const lp = await h.createAccount('liquidityProvider');
        const requestId = await createQuoteRequest(h, mm.apiKey);
        const res = await fetch(`${baseUrl}/api/v1/quotes`, {
          method: 'POST',
          headers: { 'x-api-key': lp.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ quoteRequestId: requestId, outputAmount: '990000' }),
        });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        const body = (await res.json()) as { code: string };
        expect(body.code).toBe('SERVICE_UNAVAILABLE');
        expect(JSON.stringify(body)).not.toContain('127.0.0.1:1');
        expect(await quotesOf(requestId)).toBe(0);
        expect(await eventsOf(lp.id)).toBe(0);
      } finally {
        await app.close();
      }
    });
  });

  describe('transport errors', () => {
    it('PAYLOAD_TOO_LARGE (413): a body over 64 KiB, nothing stored', async () => {
      const mm = await h.createAccount('moneyMover');
      const rawBody = JSON.stringify({ ...quoteRequestBody(h), padding: 'x'.repeat(65 * 1024) });
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 413, 'PAYLOAD_TOO_LARGE', 'body');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });

    it('UNSUPPORTED_MEDIA_TYPE (415): a text/plain body → headers.content-type, nothing stored', async () => {
      const mm = await h.createAccount('moneyMover');
      const res = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        rawBody: JSON.stringify(quoteRequestBody(h)),
        headers: { 'content-type': 'text/plain' },
      });
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'headers.content-type');
      expect(await requestCount(mm.apiKey)).toBe(0);
    });
  });
});
