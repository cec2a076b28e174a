import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuote, createQuoteRequest, expectError, quoteRequestBody } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/** Small things integrators tripped over: each answer says what to send instead. */
describe('API papercuts', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness();
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('accepts a quote sent with content-type application/json and no body', async () => {
    const quoteRequestId = await createQuoteRequest(h, mm.apiKey);
    const { quoteId } = await createQuote(h, lp.apiKey, quoteRequestId);
    const res = await h.http('POST', `/api/v1/quotes/${quoteId}/accept`, {
      apiKey: mm.apiKey,
      headers: { 'content-type': 'application/json' },
      rawBody: '',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.acceptedQuote).toMatchObject({ id: quoteId, status: 'accepted' });
  });

  it('still refuses an empty JSON body where a body is required', async () => {
    const res = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: { 'content-type': 'application/json' },
      rawBody: '',
    });
    expectError(res, 400, 'VALIDATION_ERROR', 'body');
  });

  it('INVALID_CHAIN names the supported chains in its message and details', async () => {
    const bad = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      body: quoteRequestBody(h, { outputChain: 'mainnet' }),
    });
    expectError(bad, 400, 'INVALID_CHAIN', 'body.outputChain');
    const supported = `supported chains: ${h.chainA}, ${h.chainB}`;
    expect(bad.body.error).toContain(supported);
    expect(bad.body.details).toContainEqual({
      path: 'body.outputChain',
      message: expect.stringContaining(supported),
    });
  });

  it('an enum error lists the allowed values', async () => {
    const res = await h.http('GET', '/api/v1/orders?status=done', { apiKey: mm.apiKey });
    expectError(res, 400, 'VALIDATION_ERROR', 'query.status');
    const detail = res.body.details.find((d: { path: string }) => d.path === 'query.status');
    expect(detail.message).toMatch(/^must be one of: created, .*completed/);
  });
});
