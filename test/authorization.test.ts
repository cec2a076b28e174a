import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  byName,
  ENDPOINTS,
  type Endpoint,
  type Fixtures,
  SIGNATURE_PLACEHOLDER,
} from './support/endpoint-matrix.ts';
import { acceptQuote, createQuote, expectError } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

describe('authorization matrix of endpoints 1-10', () => {
  let h: Harness;
  let f: Fixtures;
  let mm: { id: string; apiKey: string };
  let otherMm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let otherLp: { id: string; apiKey: string };
  let revokedKey: string;
  let survivingKey: string;
  let baseline: unknown;

  function call(
    endpoint: Endpoint,
    credentials: { apiKey?: string; bearer?: string; headers?: Record<string, string> },
  ) {
    return h.http(endpoint.method, endpoint.path(f), { ...credentials, body: endpoint.body?.(f, h) });
  }

  /** What the owner and the provider can see; no rejected call may change any of it. */
  async function snapshot() {
    const open = await h.http('GET', '/api/v1/quote-requests?timeWindow=86400&status=open', {
      apiKey: lp.apiKey,
    });
    const accepted = await h.http('GET', '/api/v1/quote-requests?timeWindow=86400&status=accepted', {
      apiKey: lp.apiKey,
    });
    const ownRequests = await h.http('GET', '/api/v1/quote-requests?timeWindow=86400', { apiKey: mm.apiKey });
    const openQuote = await h.http('GET', `/api/v1/quotes/${f.openQuoteId}`, { apiKey: lp.apiKey });
    const lpActive = await h.http('GET', '/api/v1/quotes?status=active', { apiKey: lp.apiKey });
    const otherLpActive = await h.http('GET', '/api/v1/quotes?status=active', { apiKey: otherLp.apiKey });
    const mmOrders = await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey });
    const lpOrders = await h.http('GET', '/api/v1/orders', { apiKey: lp.apiKey });
    for (const res of [open, accepted, ownRequests, openQuote, lpActive, otherLpActive, mmOrders, lpOrders]) {
      expect(res.status).toBe(200);
    }
    return {
      // Sorted: rows created in the same clock millisecond have no defined order.
      open: open.body.data.map((qr: { id: string }) => qr.id).sort(),
      accepted: accepted.body.data.map((qr: { id: string }) => qr.id).sort(),
      ownRequests: ownRequests.body.data
        .map((qr: { id: string; status: string }) => `${qr.id}:${qr.status}`)
        .sort(),
      openQuote: openQuote.body.data.quote.status,
      lpActive: lpActive.body.data.quotes.map((q: { id: string }) => q.id).sort(),
      otherLpActive: otherLpActive.body.data.total,
      mmOrders: mmOrders.body.data.orders
        .map((o: { orderId: string; status: string }) => `${o.orderId}:${o.status}`)
        .sort(),
      lpOrders: lpOrders.body.data.total,
    };
  }

  beforeAll(async () => {
    h = await startHarness();
    mm = await h.createAccount('moneyMover', 'owner mm');
    otherMm = await h.createAccount('moneyMover', 'other mm');
    lp = await h.createAccount('liquidityProvider', 'lp');
    otherLp = await h.createAccount('liquidityProvider', 'other lp');

    // One money mover with two keys: one is revoked, the other keeps working.
    const revoked = await h.createAccount('moneyMover', 'revoked mm');
    revokedKey = revoked.apiKey;
    survivingKey = (await h.app.accounts.createApiKey(revoked.id)).apiKey;
    expect((await h.http('GET', '/api/v1/orders', { apiKey: revokedKey })).status).toBe(200);
    const keys = await h.app.accounts.listApiKeys(revoked.id);
    expect(keys).toHaveLength(2);
    const firstKey = keys.find((k) => revokedKey.startsWith(k.keyPrefix));
    expect(firstKey).toBeDefined();
    await h.app.accounts.revokeApiKey(firstKey!.id);
    const after = await h.app.accounts.listApiKeys(revoked.id);
    expect(after.find((k) => k.id === firstKey!.id)?.revokedAt).toBeInstanceOf(Date);

    const requestBody = byName('POST /api/v1/quote-requests').body!({} as Fixtures, h);
    const request = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body: requestBody });
    expect(request.status).toBe(201);
    const requestId = request.body.data.quoteId as string;
    const { quoteId, orderId, typedData } = await createQuote(h, lp.apiKey, requestId);
    await acceptQuote(h, mm.apiKey, quoteId);
    const signature = await h.offerer.signTypedData(typedData);
    const swap = await h.http('POST', '/api/v1/swaps', {
      apiKey: mm.apiKey,
      body: { orderId, quoteId, signature },
    });
    expect(swap.status).toBe(201);

    const open = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body: requestBody });
    expect(open.status).toBe(201);
    const openRequestId = open.body.data.quoteId as string;
    const openQuote = await createQuote(h, lp.apiKey, openRequestId, '980000');

    f = {
      requestId,
      quoteId,
      orderId,
      signature,
      openRequestId,
      openQuoteId: openQuote.quoteId,
      openOrderId: openQuote.orderId,
    };
    baseline = await snapshot();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the fixtures are what the matrix expects', () => {
    expect(baseline).toEqual({
      open: [f.openRequestId],
      accepted: [f.requestId],
      ownRequests: [`${f.openRequestId}:open`, `${f.requestId}:accepted`].sort(),
      openQuote: 'active',
      lpActive: [f.openQuoteId],
      otherLpActive: 0,
      mmOrders: [`${f.orderId}:created`],
      lpOrders: 1,
    });
  });

  describe('without valid credentials every endpoint answers 401 UNAUTHORIZED', () => {
    it.each(ENDPOINTS)('$name with no credentials', async (endpoint) => {
      const res = await call(endpoint, {});
      expectError(res, 401, 'UNAUTHORIZED', 'headers.x-api-key');
      expect(res.body.details).toEqual([{ path: 'headers.x-api-key', message: 'is required' }]);
    });

    it.each(ENDPOINTS)('$name with an unknown API key', async (endpoint) => {
      const res = await call(endpoint, { apiKey: 'fry_this-key-was-never-issued' });
      expectError(res, 401, 'UNAUTHORIZED', 'headers.x-api-key');
      expect(res.body.details).toHaveLength(1);
      expect(res.body.details[0].message).not.toBe('is required');
    });

    it.each(ENDPOINTS)('$name with a revoked API key', async (endpoint) => {
      const res = await call(endpoint, { apiKey: revokedKey });
      expectError(res, 401, 'UNAUTHORIZED', 'headers.x-api-key');
      expect(res.body.details).toHaveLength(1);
      expect(res.body.details[0].message).not.toBe('is required');
    });

    it.each(ENDPOINTS)('$name with an unknown session token', async (endpoint) => {
      const res = await call(endpoint, { bearer: 'fsn_this-session-never-existed' });
      expectError(res, 401, 'UNAUTHORIZED', 'headers.authorization');
      expect(res.body.details).toHaveLength(1);
    });

    it('revoking one key leaves the account’s other key working', async () => {
      const res = await h.http('GET', '/api/v1/orders', { apiKey: survivingKey });
      expect(res.status).toBe(200);
      expect(res.body.data.total).toBe(0);
    });
  });

  describe('a role the endpoint excludes answers 403 FORBIDDEN', () => {
    const cases: Array<{ role: 'moneyMover' | 'liquidityProvider'; endpoint: string }> = [
      { role: 'liquidityProvider', endpoint: 'POST /api/v1/quote-requests' },
      { role: 'liquidityProvider', endpoint: 'POST /api/v1/quotes/{id}/accept' },
      { role: 'liquidityProvider', endpoint: 'POST /api/v1/swaps' },
      { role: 'moneyMover', endpoint: 'POST /api/v1/quotes' },
    ];
    it.each(cases)('$role may not call $endpoint', async ({ role, endpoint }) => {
      const res = await call(byName(endpoint), { apiKey: role === 'moneyMover' ? mm.apiKey : lp.apiKey });
      expectError(res, 403, 'FORBIDDEN', 'headers');
    });
  });

  describe("another account's resource answers 404 with the resource's code", () => {
    type Who = 'otherMm' | 'otherLp';
    const cases: Array<{ who: Who; method: 'GET' | 'POST'; path: string; code: string; detail: string }> = [
      {
        who: 'otherMm',
        method: 'GET',
        path: '/api/v1/quote-requests/{requestId}',
        code: 'QUOTE_REQUEST_NOT_FOUND',
        detail: 'params.id',
      },
      {
        who: 'otherMm',
        method: 'GET',
        path: '/api/v1/quote-requests/{openRequestId}',
        code: 'QUOTE_REQUEST_NOT_FOUND',
        detail: 'params.id',
      },
      {
        who: 'otherMm',
        method: 'GET',
        path: '/api/v1/quotes/{quoteId}',
        code: 'QUOTE_NOT_FOUND',
        detail: 'params.id',
      },
      {
        who: 'otherLp',
        method: 'GET',
        path: '/api/v1/quotes/{quoteId}',
        code: 'QUOTE_NOT_FOUND',
        detail: 'params.id',
      },
      {
        who: 'otherLp',
        method: 'GET',
        path: '/api/v1/quotes/{openQuoteId}',
        code: 'QUOTE_NOT_FOUND',
        detail: 'params.id',
      },
      {
        who: 'otherMm',
        method: 'POST',
        path: '/api/v1/quotes/{openQuoteId}/accept',
        code: 'QUOTE_NOT_FOUND',
        detail: 'params.id',
      },
      {
        who: 'otherMm',
        method: 'POST',
        path: '/api/v1/swaps#executed',
        code: 'QUOTE_NOT_FOUND',
        detail: 'body.quoteId',
      },
      {
        who: 'otherMm',
        method: 'POST',
        path: '/api/v1/swaps#open',
        code: 'QUOTE_NOT_FOUND',
        detail: 'body.quoteId',
      },
      {
        who: 'otherMm',
        method: 'GET',
        path: '/api/v1/orders/{orderId}',
        code: 'ORDER_NOT_FOUND',
        detail: 'params.id',
      },
      {
        who: 'otherLp',
        method: 'GET',
        path: '/api/v1/orders/{orderId}',
        code: 'ORDER_NOT_FOUND',
        detail: 'params.id',
      },
    ];

    function resolve(method: 'GET' | 'POST', path: string): { url: string; body?: unknown } {
      if (path === '/api/v1/swaps#executed') {
        return {
          url: '/api/v1/swaps',
          body: { orderId: f.orderId, quoteId: f.quoteId, signature: f.signature },
        };
      }
      if (path === '/api/v1/swaps#open') {
        return {
          url: '/api/v1/swaps',
          body: { orderId: f.openOrderId, quoteId: f.openQuoteId, signature: SIGNATURE_PLACEHOLDER },
        };
      }
      const url = path.replace(/\{(\w+)\}/g, (_m, key: keyof Fixtures) => f[key]);
      return method === 'POST' ? { url, body: {} } : { url };
    }

    it.each(cases)('$who: $method $path → 404 $code', async ({ who, method, path, code, detail }) => {
      const { url, body } = resolve(method, path);
      const apiKey = who === 'otherMm' ? otherMm.apiKey : otherLp.apiKey;
      const res = await h.http(method, url, { apiKey, body });
      expectError(res, 404, code, detail);
      expect(res.body.details).toHaveLength(1);
    });

    it('the unknown id answers exactly like another account’s (no existence leak)', async () => {
      const foreign = await h.http('GET', `/api/v1/orders/${f.orderId}`, { apiKey: otherMm.apiKey });
      const missing = await h.http('GET', '/api/v1/orders/ord_doesnotexist', { apiKey: otherMm.apiKey });
      expect(missing.status).toBe(foreign.status);
      expect(missing.body.code).toBe(foreign.body.code);
      expect(missing.body.details.map((d: { path: string }) => d.path)).toEqual(
        foreign.body.details.map((d: { path: string }) => d.path),
      );
      expect(missing.body.error.replace('ord_doesnotexist', 'ID')).toBe(
        foreign.body.error.replace(f.orderId, 'ID'),
      );
    });

    it("lists leave out another account's resources", async () => {
      const requests = await h.http('GET', '/api/v1/quote-requests?timeWindow=86400', {
        apiKey: otherMm.apiKey,
      });
      expect(requests.status).toBe(200);
      expect(requests.body.data).toEqual([]);
      expect(requests.body.total).toBe(0);

      const quotes = await h.http('GET', `/api/v1/quotes?quoteRequestId=${f.openRequestId}`, {
        apiKey: otherMm.apiKey,
      });
      expect(quotes.status).toBe(200);
      expect(quotes.body.data.total).toBe(0);

      const lpQuotes = await h.http('GET', '/api/v1/quotes?status=accepted', { apiKey: otherLp.apiKey });
      expect(lpQuotes.status).toBe(200);
      expect(lpQuotes.body.data.total).toBe(0);

      for (const apiKey of [otherMm.apiKey, otherLp.apiKey]) {
        const orders = await h.http('GET', '/api/v1/orders', { apiKey });
        expect(orders.status).toBe(200);
        expect(orders.body.data.total).toBe(0);
        expect(orders.body.data.orders).toEqual([]);
      }
    });
  });

  describe('the owners themselves are admitted (controls for the rejections above)', () => {
    type Who = 'mm' | 'lp';
    const cases: Array<{ who: Who; path: string }> = [
      { who: 'mm', path: '/api/v1/quote-requests/{requestId}' },
      { who: 'lp', path: '/api/v1/quote-requests/{openRequestId}' },
      { who: 'mm', path: '/api/v1/quotes/{quoteId}' },
      { who: 'lp', path: '/api/v1/quotes/{quoteId}' },
      { who: 'mm', path: '/api/v1/quotes/{openQuoteId}' },
      { who: 'mm', path: '/api/v1/orders/{orderId}' },
      { who: 'lp', path: '/api/v1/orders/{orderId}' },
      { who: 'mm', path: '/api/v1/orders?accountType=moneyMover' },
      { who: 'lp', path: '/api/v1/orders?accountType=liquidityProvider' },
      { who: 'mm', path: '/api/v1/quotes?quoteRequestId={openRequestId}' },
    ];
    it.each(cases)('$who: GET $path → 200', async ({ who, path }) => {
      const url = path.replace(/\{(\w+)\}/g, (_m, key: keyof Fixtures) => f[key]);
      const res = await h.http('GET', url, { apiKey: who === 'mm' ? mm.apiKey : lp.apiKey });
      expect(res.status).toBe(200);
      const text = JSON.stringify(res.body.data);
      const expectedId = /\{(\w+)\}/.exec(path)?.[1] as keyof Fixtures | undefined;
      if (expectedId) expect(text).toContain(f[expectedId]);
      else expect(text).toContain(f.orderId);
    });
  });

  describe("the offerer's signature goes to the money mover only", () => {
    // With the signature anyone can deposit the order into the escrow, so the liquidity provider never sees it.
    const signatureHex = () => f.signature.slice(2).toLowerCase();

    it('the money mover reads it on the order and in its list', async () => {
      const one = await h.http('GET', `/api/v1/orders/${f.orderId}`, { apiKey: mm.apiKey });
      expect(one.status).toBe(200);
      expect(one.body.data.signature.toLowerCase()).toBe(f.signature.toLowerCase());
      const list = await h.http('GET', '/api/v1/orders?includeQuote=true', { apiKey: mm.apiKey });
      expect(list.body.data.orders[0].signature.toLowerCase()).toBe(f.signature.toLowerCase());
    });

    it.each([
      `/api/v1/orders/{orderId}`,
      '/api/v1/orders',
      '/api/v1/orders?includeQuote=true',
      '/api/v1/orders?accountType=liquidityProvider&includeQuote=true',
      `/api/v1/quotes/{quoteId}`,
      '/api/v1/quotes?status=accepted',
    ])('the liquidity provider does not: GET %s', async (path) => {
      const url = path.replace(/\{(\w+)\}/g, (_m, key: keyof Fixtures) => f[key]);
      const res = await h.http('GET', url, { apiKey: lp.apiKey });
      expect(res.status).toBe(200);
      const text = JSON.stringify(res.body).toLowerCase();
      expect(text).toContain(f.orderId.toLowerCase());
      expect(text).not.toContain(signatureHex());
      const orders = res.body.data.orders ?? (res.body.data.orderId ? [res.body.data] : []);
      for (const order of orders) expect(order).not.toHaveProperty('signature');
    });

    it('no event (the source of every SSE and WebSocket message) carries it', async () => {
      const rows = await h.app.database.db.selectFrom('events').selectAll().execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows).toLowerCase()).not.toContain(signatureHex());
    });
  });

  it('no rejected call above changed anything', async () => {
    expect(await snapshot()).toEqual(baseline);
  });
});
