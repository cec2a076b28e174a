import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteRequestBody } from './support/fixtures.ts';
import { type Harness, type HttpResponse, startHarness } from './support/harness.ts';

/**
 * Per-minute limits of docs/api-conventions.md, counted per account: 100 through an API key, 60 through a session,
 * 120 per client IP when anonymous (test/account-budgets.test.ts: one account's keys and sessions share them).
 * Every response carries RateLimit-Limit / -Remaining / -Reset; a refusal is 429 RATE_LIMITED with Retry-After.
 * The limiter counts in real time (fixed one-minute windows); a few hundred local requests fit well inside one.
 *
 * Anonymous requests share one bucket per IP (this test client is always 127.0.0.1), so the file counts them:
 * beforeAll signs in with SIWE through two anonymous requests (GET /auth/nonce, POST /auth/verify).
 */

const ANONYMOUS_REQUESTS_IN_SETUP = 2;

describe('rate limits', () => {
  let h: Harness;
  let session: string;

  beforeAll(async () => {
    h = await startHarness();
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
    const signature = await h.offerer.signMessage({ message });
    const verified = await h.http('POST', '/auth/verify', {
      body: { message, signature, address: h.offerer.address },
    });
    expect(verified.status).toBe(200);
    session = verified.body.session.token;
  });
  afterAll(async () => {
    await h?.close();
  });

  function limitHeaders(res: HttpResponse) {
    return {
      limit: res.headers.get('ratelimit-limit'),
      remaining: res.headers.get('ratelimit-remaining'),
      reset: res.headers.get('ratelimit-reset'),
    };
  }

  function expectReset(res: HttpResponse) {
    const reset = Number(res.headers.get('ratelimit-reset'));
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset).toBeGreaterThanOrEqual(0);
    expect(reset).toBeLessThanOrEqual(60);
  }

  function expectRefused(res: HttpResponse, limit: number) {
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(typeof res.body.error).toBe('string');
    expect(res.body.details.length).toBeGreaterThan(0);
    expect(res.body.details.every((d: { path: string; message: string }) => typeof d.path === 'string')).toBe(
      true,
    );
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expectReset(res);
  }

  /** Sends `count` requests in order; each must succeed with the next lower Remaining. */
  async function spend(
    count: number,
    limit: number,
    firstRemaining: number,
    send: (i: number) => Promise<HttpResponse>,
  ): Promise<void> {
    for (let i = 0; i < count; i++) {
      const res = await send(i);
      expect(res.status, `request ${i + 1}`).toBeLessThan(300);
      expect(limitHeaders(res).limit).toBe(String(limit));
      expect(limitHeaders(res).remaining, `request ${i + 1}`).toBe(String(firstRemaining - i));
      expectReset(res);
    }
  }

  it('an API key gets 100 requests a minute, then 429 RATE_LIMITED with Retry-After; nothing refused is written', async () => {
    const account = await h.app.accounts.createAccount({ type: 'moneyMover', name: 'busy', address: null });
    const { apiKey } = await h.app.accounts.createApiKey(account.id);
    const { apiKey: sameAccountOtherKey } = await h.app.accounts.createApiKey(account.id);

    await spend(100, 100, 99, (i) =>
      i % 2 === 0
        ? h.http('GET', '/api/v1/orders', { apiKey })
        : h.http('GET', '/api/v1/quote-requests?page=2', { apiKey }),
    );

    const refused = await h.http('GET', '/api/v1/orders', { apiKey });
    expectRefused(refused, 100);

    // A refused write is not performed.
    const write = await h.http('POST', '/api/v1/quote-requests', { apiKey, body: quoteRequestBody(h) });
    expectRefused(write, 100);

    // Limits are per account: another key of the same account spends the same, spent budget.
    expectRefused(await h.http('GET', '/api/v1/orders', { apiKey: sameAccountOtherKey }), 100);

    // Still refused: the window has not moved.
    expectRefused(await h.http('GET', '/api/v1/orders', { apiKey }), 100);
  });

  it("another account's key is unaffected", async () => {
    const exhausted = await h.createAccount('liquidityProvider', 'greedy');
    await spend(100, 100, 99, () => h.http('GET', '/api/v1/quotes', { apiKey: exhausted.apiKey }));
    expectRefused(await h.http('GET', '/api/v1/quotes', { apiKey: exhausted.apiKey }), 100);

    const calm = await h.createAccount('liquidityProvider', 'calm');
    const res = await h.http('GET', '/api/v1/quotes', { apiKey: calm.apiKey });
    expect(res.status).toBe(200);
    expect(limitHeaders(res)).toMatchObject({ limit: '100', remaining: '99' });
    expectReset(res);
  });

  it('errors count too, and carry the headers: 4xx answers spend the budget', async () => {
    const mm = await h.createAccount('moneyMover');
    const notFound = await h.http('GET', '/api/v1/orders/ord_01nosuchorder', { apiKey: mm.apiKey });
    expect(notFound.status).toBe(404);
    expect(limitHeaders(notFound)).toMatchObject({ limit: '100', remaining: '99' });
    const forbidden = await h.http('POST', '/api/v1/quotes', {
      apiKey: mm.apiKey,
      body: { quoteRequestId: 'qr_x', outputAmount: '1' },
    });
    expect(forbidden.status).toBe(403);
    expect(limitHeaders(forbidden)).toMatchObject({ limit: '100', remaining: '98' });
    const noRoute = await h.http('GET', '/api/v1/nothing-here', { apiKey: mm.apiKey });
    expect(noRoute.status).toBe(404);
    expect(limitHeaders(noRoute)).toMatchObject({ limit: '100', remaining: '97' });
  });

  it('a SIWE session gets 60 requests a minute', async () => {
    await spend(60, 60, 59, () => h.http('GET', '/api/v1/orders', { bearer: session }));
    expectRefused(await h.http('GET', '/api/v1/orders', { bearer: session }), 60);
  });

  // Runs last: it spends this client's anonymous budget.
  it('anonymous clients get 120 requests a minute per IP, across public endpoints', async () => {
    const first = await h.http('GET', '/api/public/orders');
    expect(first.status).toBe(200);
    expect(limitHeaders(first).limit).toBe('120');
    expect(limitHeaders(first).remaining).toBe(String(120 - ANONYMOUS_REQUESTS_IN_SETUP - 1));
    const left = 120 - ANONYMOUS_REQUESTS_IN_SETUP - 1;
    const paths = ['/api/public/orders', '/api/public/chains', '/api/public/quotes/recent', '/auth/nonce'];
    await spend(left, 120, left - 1, (i) => h.http('GET', paths[i % paths.length]!));

    expectRefused(await h.http('GET', '/api/public/orders'), 120);
    expectRefused(await h.http('GET', '/api/public/chains'), 120);
    // An unknown route for this client is refused by the same bucket.
    expectRefused(await h.http('GET', '/no-such-route'), 120);

    // Authenticated callers from the same IP are counted by account, not by IP.
    const mm = await h.createAccount('moneyMover');
    const authed = await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey });
    expect(authed.status).toBe(200);
    expect(limitHeaders(authed)).toMatchObject({ limit: '100', remaining: '99' });
  });
});
