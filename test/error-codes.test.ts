import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuote, createQuoteRequest, expectError, quoteRequestBody } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { countQuoteRequests } from './support/quote-request-count.ts';

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

  const requestCount = (apiKey: string) => countQuoteRequests(h, apiKey);

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
});
