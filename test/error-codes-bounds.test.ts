import fs from 'node:fs';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { createChainRegistry } from '../src/chains/chain-registry.ts';
import { transferToken } from './support/chain-actors.ts';
import { createQuote, createQuoteRequest, expectError, quoteRequestBody } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { countQuoteRequests } from './support/quote-request-count.ts';

/**
 * The economic bounds of a quote request and the transport errors (bodies, media types), produced by real
 * requests over HTTP. The rest of the error table is in test/error-codes.test.ts.
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
