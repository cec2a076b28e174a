import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, quoteRequestBody } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/**
 * `Idempotency-Key` on POST (docs/api-conventions.md): same key and same body replays the stored response
 * (header `idempotent-replayed: true`) without running the request again; same key with another body is
 * 409 IDEMPOTENCY_KEY_REUSED; keys are scoped per credential. Row counts are read back through the API.
 */

describe('Idempotency-Key', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  async function requestTotal(apiKey: string): Promise<number> {
    const res = await h.http('GET', '/api/v1/quote-requests?timeWindow=2592000', { apiKey });
    expect(res.status).toBe(200);
    return res.body.total;
  }

  const withKey = (key: string) => ({ 'idempotency-key': key });

  it('same key + same body → the stored response, replayed; one row', async () => {
    const mm = await h.createAccount('moneyMover');
    const first = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('create-request-1'),
      body: quoteRequestBody(h),
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // Move the clock so that a second run would produce different timestamps and a different id.
    h.clock.advance(1);
    const second = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('create-request-1'),
      body: quoteRequestBody(h),
    });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    expect(second.body.data.quoteId).toBe(first.body.data.quoteId);
    expect(second.body).toEqual(first.body);
    expect(await requestTotal(mm.apiKey)).toBe(1);

    // Without the key the same body is a new request.
    const fresh = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      body: quoteRequestBody(h),
    });
    expect(fresh.status).toBe(201);
    expect(fresh.body.data.quoteId).not.toBe(first.body.data.quoteId);
    expect(await requestTotal(mm.apiKey)).toBe(2);
  });

  it('the same body with its keys in another order is the same request', async () => {
    const mm = await h.createAccount('moneyMover');
    const body = quoteRequestBody(h);
    const first = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('order-1'),
      body,
    });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const second = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('order-1'),
      body: reordered,
    });
    expect(first.status).toBe(201);
    // The body is compared in canonical form (keys sorted), so this is a replay, not a reuse.
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.quoteId).toBe(first.body.data.quoteId);
    expect(await requestTotal(mm.apiKey)).toBe(1);
  });

  it('same key + different body → 409 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    const mm = await h.createAccount('moneyMover');
    const first = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('reuse-me'),
      body: quoteRequestBody(h),
    });
    expect(first.status).toBe(201);
    const other = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('reuse-me'),
      body: quoteRequestBody(h, { inputAmount: '2000000' }),
    });
    expectError(other, 409, 'IDEMPOTENCY_KEY_REUSED', 'headers.idempotency-key');
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await requestTotal(mm.apiKey)).toBe(1);

    // The original body still replays after the refusal.
    const again = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('reuse-me'),
      body: quoteRequestBody(h),
    });
    expect(again.status).toBe(201);
    expect(again.body.data.quoteId).toBe(first.body.data.quoteId);
  });

  it('same key on another endpoint → 409 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider');
    const created = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('shared-key'),
      body: quoteRequestBody(h),
    });
    expect(created.status).toBe(201);
    const requestId = created.body.data.quoteId;
    const quote = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '990000' },
    });
    expect(quote.status).toBe(201);
    const accept = await h.http('POST', `/api/v1/quotes/${quote.body.data.quoteId}/accept`, {
      apiKey: mm.apiKey,
      headers: withKey('shared-key'),
    });
    expectError(accept, 409, 'IDEMPOTENCY_KEY_REUSED', 'headers.idempotency-key');
    const read = await h.http('GET', `/api/v1/quotes/${quote.body.data.quoteId}`, { apiKey: mm.apiKey });
    expect(read.body.data.quote.status).toBe('active');
  });

  it('keys are per credential: another key may use the same Idempotency-Key', async () => {
    const mm1 = await h.createAccount('moneyMover');
    const mm2 = await h.createAccount('moneyMover');
    const { apiKey: mm1SecondKey } = await h.app.accounts.createApiKey(mm1.id);

    const a = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm1.apiKey,
      headers: withKey('common'),
      body: quoteRequestBody(h),
    });
    const b = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm2.apiKey,
      headers: withKey('common'),
      body: quoteRequestBody(h),
    });
    const c = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm1SecondKey,
      headers: withKey('common'),
      body: quoteRequestBody(h, { inputAmount: '3000000' }),
    });
    for (const res of [a, b, c]) {
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(new Set([a.body.data.quoteId, b.body.data.quoteId, c.body.data.quoteId]).size).toBe(3);
    expect(await requestTotal(mm1.apiKey)).toBe(2);
    expect(await requestTotal(mm2.apiKey)).toBe(1);

    // mm2's use of the key does not leak mm1's stored response, and vice versa.
    const replayB = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm2.apiKey,
      headers: withKey('common'),
      body: quoteRequestBody(h),
    });
    expect(replayB.headers.get('idempotent-replayed')).toBe('true');
    expect(replayB.body.data.quoteId).toBe(b.body.data.quoteId);
  });

  it.each([
    ['300 characters', 'k'.repeat(300)],
    ['256 characters', 'k'.repeat(256)],
    ['empty', ''],
    ['a space inside', 'two words'],
    ['a tab inside', 'tab\there'],
    ['non-ASCII', 'cl\u00e9'],
  ])('an invalid key (%s) → 400 headers.idempotency-key, nothing written', async (_label, key) => {
    const mm = await h.createAccount('moneyMover');
    const res = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey(key),
      body: quoteRequestBody(h),
    });
    expectError(res, 400, 'VALIDATION_ERROR', 'headers.idempotency-key');
    expect(await requestTotal(mm.apiKey)).toBe(0);
  });

  it('the longest valid key (255 visible ASCII characters) is accepted', async () => {
    const mm = await h.createAccount('moneyMover');
    const key = `${'!~'.repeat(127)}Z`;
    expect(key).toHaveLength(255);
    const first = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey(key),
      body: quoteRequestBody(h),
    });
    const second = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey(key),
      body: quoteRequestBody(h),
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await requestTotal(mm.apiKey)).toBe(1);
  });

  it('a replayed accept returns the stored answer without running again', async () => {
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider');
    const created = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      body: quoteRequestBody(h),
    });
    const quote = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: created.body.data.quoteId, outputAmount: '990000' },
    });
    const path = `/api/v1/quotes/${quote.body.data.quoteId}/accept`;
    const first = await h.http('POST', path, { apiKey: mm.apiKey, headers: withKey('accept-1'), body: {} });
    expect(first.status).toBe(200);
    const replay = await h.http('POST', path, { apiKey: mm.apiKey, headers: withKey('accept-1'), body: {} });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    // Run for real, a second accept is refused: the quote is no longer active.
    const unkeyed = await h.http('POST', path, { apiKey: mm.apiKey });
    expectError(unkeyed, 409, 'QUOTE_NOT_ACTIVE', 'params.id');
  });

  it('a swap retried with the same key returns the same order, once', async () => {
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider');
    const created = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      body: quoteRequestBody(h),
    });
    const quote = (
      await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId: created.body.data.quoteId, outputAmount: '990000' },
      })
    ).body.data;
    expect(
      (await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey: mm.apiKey })).status,
    ).toBe(200);
    const signature = await h.offerer.signTypedData(quote.typedData);
    const body = { orderId: quote.orderId, quoteId: quote.quoteId, signature };

    const first = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      headers: withKey('swap-1'),
      body,
    });
    expect(first.status).toBe(201);
    const retry = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      headers: withKey('swap-1'),
      body,
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(retry.body.data.orderId).toBe(quote.orderId);

    // A retry under a new key is still the same order (the swap itself is idempotent), answered 200.
    const newKey = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      headers: withKey('swap-2'),
      body,
    });
    expect(newKey.status).toBe(200);
    expect(newKey.headers.get('idempotent-replayed')).toBeNull();
    expect(newKey.body.data.orderId).toBe(quote.orderId);

    const orders = await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey });
    expect(orders.body.data.total).toBe(1);
    expect(orders.body.data.orders[0].orderId).toBe(quote.orderId);
  });

  it('concurrent requests with one key create exactly one row', async () => {
    const mm = await h.createAccount('moneyMover');
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.http('POST', '/api/v1/quote-requests', {
          apiKey: mm.apiKey,
          headers: withKey('burst'),
          body: quoteRequestBody(h),
        }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.data.quoteId)).size).toBe(1);
    // A request that arrives while the first is still running is told to retry, never run twice.
    for (const r of results.filter((r) => r.status !== 201))
      expectError(r, 409, 'CONFLICT', 'headers.idempotency-key');
    expect(
      results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null),
    ).toHaveLength(1);
    expect(await requestTotal(mm.apiKey)).toBe(1);
  });

  it('stored responses survive a restart', async () => {
    const mm = await h.createAccount('moneyMover');
    const first = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('durable'),
      body: quoteRequestBody(h),
    });
    expect(first.status).toBe(201);
    await h.restart();
    const replay = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('durable'),
      body: quoteRequestBody(h),
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.quoteId).toBe(first.body.data.quoteId);
    expect(await requestTotal(mm.apiKey)).toBe(1);
  });

  it('a claim left unfinished by a dead request frees its key after a minute, not after 24 h', async () => {
    const mm = await h.createAccount('moneyMover');
    const keys = await h.app.accounts.listApiKeys(mm.id);
    // What a process killed between claiming the key and answering leaves behind.
    await h.app.database.db
      .insertInto('idempotency_keys')
      .values({
        scope: `cred:${keys[0]!.id}`,
        key: 'orphan-1',
        request_hash: 'x',
        status_code: null,
        response_body: null,
        created_at: h.clock.now().getTime() - 61_000,
      })
      .execute();
    const res = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      headers: withKey('orphan-1'),
      body: quoteRequestBody(h),
    });
    expect(res.status).toBe(201);
    expect(await requestTotal(mm.apiKey)).toBe(1);
  });

  it('GET ignores the header', async () => {
    const mm = await h.createAccount('moneyMover');
    const res = await h.http('GET', '/api/v1/orders', {
      apiKey: mm.apiKey,
      headers: withKey('k'.repeat(300)),
    });
    expect(res.status).toBe(200);
  });
});
