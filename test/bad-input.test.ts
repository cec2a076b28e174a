import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteRequestBody } from './support/fixtures.ts';
import { type Harness, type HttpResponse, startHarness } from './support/harness.ts';

/**
 * Hostile and broken input never reaches a 500: every answer is a documented error body
 * ({error, code, details:[{path, message}]}) naming the field, and nothing is written.
 */

type Fields = Record<string, unknown>;

const WRONG_TYPES: Array<[string, unknown]> = [
  ['an array', ['1000000']],
  ['an object', { value: '1000000' }],
  ['null', null],
  ['a number', 1000000],
  ['a boolean', true],
];

const HUGE = 'a'.repeat(60_000); // under the 64 KiB body limit, far over any field's own limit

describe('bad input never produces a 500', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  /** An open request no one has quoted: a quote body that wrongly passed validation would create a quote on it. */
  let freshRequestId: string;
  /** An active quote: an accept body that wrongly passed validation would accept it. */
  let activeQuote: { quoteId: string; orderId: string };
  /** An accepted quote with its valid signature: a swap body that wrongly passed would create the order. */
  let acceptedQuote: { quoteId: string; orderId: string; signature: string };
  let nonce: string;

  beforeAll(async () => {
    // The limiter is not under test here and this file sends a few hundred requests per credential.
    h = await startHarness({ rateLimits: { apiKey: 1_000_000, session: 1_000_000, ip: 1_000_000 } });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider');
    const createRequest = async () => {
      const res = await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body: validRequest() });
      expect(res.status).toBe(201);
      return res.body.data.quoteId as string;
    };
    const createQuote = async (quoteRequestId: string) => {
      const res = await h.http('POST', '/api/v1/quotes', {
        apiKey: lp.apiKey,
        body: { quoteRequestId, outputAmount: '990000' },
      });
      expect(res.status).toBe(201);
      return res.body.data;
    };
    freshRequestId = await createRequest();
    activeQuote = await createQuote(await createRequest());
    const toAccept = await createQuote(await createRequest());
    const accepted = await h.http('POST', `/api/v1/quotes/${toAccept.quoteId}/accept`, { apiKey: mm.apiKey });
    expect(accepted.status).toBe(200);
    acceptedQuote = {
      quoteId: toAccept.quoteId,
      orderId: toAccept.orderId,
      signature: await h.offerer.signTypedData(toAccept.typedData),
    };
    nonce = (await h.http('GET', '/auth/nonce')).body.nonce;
  });
  afterAll(async () => {
    await h?.close();
  });

  function validRequest(): Fields {
    return quoteRequestBody(h);
  }

  interface Target {
    name: string;
    path: () => string;
    apiKey: () => string | undefined;
    valid: () => Fields;
    /** The body may be left out; an empty JSON body is then no body (test/api-papercuts.test.ts). */
    bodyOptional?: true;
  }

  const targets: Target[] = [
    {
      name: 'POST /api/v1/quote-requests',
      path: () => '/api/v1/quote-requests',
      apiKey: () => mm.apiKey,
      valid: validRequest,
    },
    {
      name: 'POST /api/v1/quotes',
      path: () => '/api/v1/quotes',
      apiKey: () => lp.apiKey,
      valid: () => ({ quoteRequestId: freshRequestId, outputAmount: '990000', validFor: 60 }),
    },
    {
      name: 'POST /api/v1/swaps',
      path: () => '/api/v1/swaps',
      apiKey: () => mm.apiKey,
      valid: () => ({ ...acceptedQuote }),
    },
    {
      name: 'POST /api/v1/quotes/{id}/accept',
      path: () => `/api/v1/quotes/${activeQuote.quoteId}/accept`,
      apiKey: () => mm.apiKey,
      valid: () => ({ quoteId: activeQuote.quoteId }),
      bodyOptional: true,
    },
    {
      name: 'POST /auth/verify',
      path: () => '/auth/verify',
      apiKey: () => undefined,
      valid: () => ({
        message: `ferry.test wants you to sign in with your Ethereum account:\n${h.offerer.address}\n\nURI: https://ferry.test\nVersion: 1\nChain ID: 1\nNonce: ${nonce}\nIssued At: 2020-01-01T00:00:00.000Z`,
        signature: `0x${'11'.repeat(65)}`,
        address: h.offerer.address,
      }),
    },
  ];

  const fieldsOf: Record<string, string[]> = {
    'POST /api/v1/quote-requests': [
      'recipient',
      'offerer',
      'inputToken',
      'outputToken',
      'inputAmount',
      'inputChain',
      'outputChain',
    ],
    'POST /api/v1/quotes': ['quoteRequestId', 'outputAmount', 'validFor'],
    'POST /api/v1/swaps': ['orderId', 'quoteId', 'signature'],
    'POST /api/v1/quotes/{id}/accept': ['quoteId'],
    'POST /auth/verify': ['message', 'signature', 'address'],
  };

  /** Everything a wrongly accepted request could have written, read back through the API. */
  async function snapshot() {
    const [requests, active, accepted, orders, lpQuotes, publicOrders, publicQuotes] = await Promise.all([
      h.http('GET', '/api/v1/quote-requests?timeWindow=2592000', { apiKey: mm.apiKey }),
      h.http('GET', '/api/v1/quotes?status=active', { apiKey: mm.apiKey }),
      h.http('GET', '/api/v1/quotes?status=accepted', { apiKey: mm.apiKey }),
      h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey }),
      h.http('GET', '/api/v1/quotes?status=active', { apiKey: lp.apiKey }),
      h.http('GET', '/api/public/orders'),
      h.http('GET', '/api/public/quotes/recent?limit=100'),
    ]);
    for (const r of [requests, active, accepted, orders, lpQuotes, publicOrders, publicQuotes])
      expect(r.status).toBe(200);
    return {
      quoteRequests: requests.body.total,
      requestStatuses: requests.body.data
        .map((qr: { id: string; status: string }) => `${qr.id}:${qr.status}`)
        .sort(),
      activeQuotes: active.body.data.total,
      acceptedQuotes: accepted.body.data.total,
      orders: orders.body.data.total,
      lpActiveQuotes: lpQuotes.body.data.total,
      publicOrders: publicOrders.body.total,
      recentQuotes: publicQuotes.body.data.quotes
        .map((q: { id: string; status: string }) => `${q.id}:${q.status}`)
        .sort(),
    };
  }

  function expectDocumentedError(res: HttpResponse, status: number, code: string, path?: string): void {
    expect(res.status).toBeLessThan(500);
    expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
    expect(Object.keys(res.body).sort()).toEqual(['code', 'details', 'error']);
    expect(typeof res.body.error).toBe('string');
    expect(Array.isArray(res.body.details)).toBe(true);
    expect(res.body.details.length).toBeGreaterThan(0);
    for (const detail of res.body.details) {
      expect(Object.keys(detail).sort()).toEqual(['message', 'path']);
      expect(typeof detail.path).toBe('string');
      expect(typeof detail.message).toBe('string');
    }
    if (path !== undefined) expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  }

  it('the setup is what the other tests assume', async () => {
    const state = await snapshot();
    expect(state).toMatchObject({
      quoteRequests: 3,
      activeQuotes: 1,
      acceptedQuotes: 1,
      orders: 0,
      lpActiveQuotes: 1,
    });
  });

  describe.each(targets)('$name', (target) => {
    const post = (init: { body?: unknown; rawBody?: string; headers?: Record<string, string> }) =>
      h.http('POST', target.path(), { apiKey: target.apiKey(), ...init });

    it('invalid JSON → 400 body', async () => {
      const before = await snapshot();
      for (const rawBody of [
        '{"quoteId":',
        '{bad json}',
        "{'single':'quotes'}",
        '{"a":1,}',
        'undefined',
        '\u0000',
      ]) {
        const res = await post({ rawBody, headers: { 'content-type': 'application/json' } });
        expectDocumentedError(res, 400, 'VALIDATION_ERROR', 'body');
      }
      expect(await snapshot()).toEqual(before);
    });

    it.skipIf(target.bodyOptional)(
      'an empty body with content-type application/json → 400 body',
      async () => {
        const before = await snapshot();
        const res = await post({ rawBody: '', headers: { 'content-type': 'application/json' } });
        expectDocumentedError(res, 400, 'VALIDATION_ERROR', 'body');
        expect(await snapshot()).toEqual(before);
      },
    );

    it('a body that is not an object (array, string, number, null) → 400 body', async () => {
      const before = await snapshot();
      for (const rawBody of ['[]', '[{}]', '"text"', '42', 'null', 'true']) {
        const res = await post({ rawBody, headers: { 'content-type': 'application/json' } });
        expectDocumentedError(res, 400, 'VALIDATION_ERROR', 'body');
      }
      expect(await snapshot()).toEqual(before);
    });

    it('a 1 MB body → 413', async () => {
      const before = await snapshot();
      const rawBody = JSON.stringify({ ...target.valid(), padding: 'x'.repeat(1024 * 1024) });
      const res = await post({ rawBody, headers: { 'content-type': 'application/json' } });
      expectDocumentedError(res, 413, 'PAYLOAD_TOO_LARGE', 'body');
      expect(await snapshot()).toEqual(before);
    });

    it('a __proto__ key (prototype poisoning) → 400', async () => {
      const before = await snapshot();
      const rawBody = `{"__proto__":{"admin":true},${JSON.stringify(target.valid()).slice(1)}`;
      const res = await post({ rawBody, headers: { 'content-type': 'application/json' } });
      expectDocumentedError(res, 400, 'VALIDATION_ERROR');
      expect(await snapshot()).toEqual(before);
    });

    it('deeply nested JSON → 400 body', async () => {
      const before = await snapshot();
      const rawBody = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const res = await post({ rawBody, headers: { 'content-type': 'application/json' } });
      expectDocumentedError(res, 400, 'VALIDATION_ERROR', 'body');
      expect(await snapshot()).toEqual(before);
    });

    it('a huge string in each field → 400 naming the field', async () => {
      const before = await snapshot();
      for (const field of fieldsOf[target.name]!) {
        const res = await post({ body: { ...target.valid(), [field]: HUGE } });
        expectDocumentedError(res, 400, 'VALIDATION_ERROR', `body.${field}`);
      }
      expect(await snapshot()).toEqual(before);
    });

    it.each(WRONG_TYPES)('%s in each field → 400 naming the field', async (_label, value) => {
      const before = await snapshot();
      for (const field of fieldsOf[target.name]!) {
        // validFor is the one numeric field: a number is its right type, so give it a fraction instead.
        const sent = field === 'validFor' && typeof value === 'number' ? 60.5 : value;
        const res = await post({ body: { ...target.valid(), [field]: sent } });
        expectDocumentedError(res, 400, 'VALIDATION_ERROR', `body.${field}`);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('an unknown field → 400 naming it', async () => {
      const before = await snapshot();
      const res = await post({ body: { ...target.valid(), isAdmin: true } });
      expectDocumentedError(res, 400, 'VALIDATION_ERROR', 'body.isAdmin');
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('weird path ids', () => {
    // A path parameter over the router's limit is refused before routing, so no parameter can be named: `url`.
    const weirdIds: Array<[string, string, string]> = [
      ['65 characters', `q_${'a'.repeat(63)}`, 'params.id'],
      ['5000 characters', `q_${'a'.repeat(4998)}`, 'url'],
      ['unicode', encodeURIComponent('q_ünï©ødé_🚀'), 'params.id'],
      ['../ (encoded)', encodeURIComponent('../'), 'params.id'],
      ['../../etc/passwd (encoded)', encodeURIComponent('../../etc/passwd'), 'params.id'],
      ['a NUL byte', '%00', 'params.id'],
      ['SQL', encodeURIComponent("q_1' OR '1'='1"), 'params.id'],
      ['spaces', encodeURIComponent('q 1'), 'params.id'],
    ];
    const routes: Array<[string, string, (id: string) => string, () => string]> = [
      ['GET', 'quote request', (id) => `/api/v1/quote-requests/${id}`, () => mm.apiKey],
      ['GET', 'quote', (id) => `/api/v1/quotes/${id}`, () => mm.apiKey],
      ['GET', 'order', (id) => `/api/v1/orders/${id}`, () => mm.apiKey],
      ['POST', 'accept', (id) => `/api/v1/quotes/${id}/accept`, () => mm.apiKey],
    ];

    it.each(weirdIds)('%s id → 400 %s on every route, nothing written', async (_label, id, field) => {
      const before = await snapshot();
      for (const [method, _name, path, apiKey] of routes) {
        const res = await h.http(method, path(id), { apiKey: apiKey() });
        expectDocumentedError(res, 400, 'VALIDATION_ERROR', field);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('a malformed percent-encoding in the path → 400 url, without echoing it', async () => {
      const before = await snapshot();
      for (const [method, _name, path, apiKey] of routes) {
        const res = await h.http(method, path('q_%E0%A4%A'), { apiKey: apiKey() });
        expectDocumentedError(res, 400, 'VALIDATION_ERROR', 'url');
        expect(JSON.stringify(res.body)).not.toContain('%E0');
      }
      expect(await snapshot()).toEqual(before);
    });

    it('an unencoded ../ is resolved to another path, never escapes the API', async () => {
      // fetch normalises the dot segments, so this asks for /api/v1/orders itself.
      const res = await h.http('GET', '/api/v1/quotes/../orders', { apiKey: mm.apiKey });
      expect(res.status).toBe(200);
      expect(res.body.data.total).toBe(0);
      const outside = await h.http('GET', '/api/v1/../../../etc/passwd', { apiKey: mm.apiKey });
      expectDocumentedError(outside, 404, 'NOT_FOUND', 'url');
    });
  });

  describe('bad query parameters', () => {
    const cases: Array<[string, string, () => string | undefined, string]> = [
      ['/api/v1/quote-requests?page=abc', 'query.page', () => mm.apiKey, 'GET'],
      ['/api/v1/quote-requests?pageSize=1e3', 'query.pageSize', () => mm.apiKey, 'GET'],
      ['/api/v1/quote-requests?page=1.5', 'query.page', () => mm.apiKey, 'GET'],
      ['/api/v1/quote-requests?page=1&page=2', 'query.page', () => mm.apiKey, 'GET'],
      ['/api/v1/quote-requests?page=99999999999999999999999', 'query.page', () => mm.apiKey, 'GET'],
      ['/api/v1/quote-requests?timeWindow=-5', 'query.timeWindow', () => mm.apiKey, 'GET'],
      ['/api/v1/quote-requests?timeWindow=forever', 'query.timeWindow', () => mm.apiKey, 'GET'],
      ['/api/v1/quote-requests?status=bogus', 'query.status', () => mm.apiKey, 'GET'],
      ['/api/v1/quote-requests?sort=id', 'query.sort', () => mm.apiKey, 'GET'],
      ['/api/v1/quotes?status=pending', 'query.status', () => mm.apiKey, 'GET'],
      [
        `/api/v1/quotes?quoteRequestId=${encodeURIComponent('../')}`,
        'query.quoteRequestId',
        () => mm.apiKey,
        'GET',
      ],
      [`/api/v1/quotes?quoteRequestId=${'x'.repeat(3000)}`, 'query.quoteRequestId', () => mm.apiKey, 'GET'],
      ['/api/v1/orders?includeQuote=maybe', 'query.includeQuote', () => mm.apiKey, 'GET'],
      ['/api/v1/orders?accountType=admin', 'query.accountType', () => mm.apiKey, 'GET'],
      ['/api/v1/orders?status=done', 'query.status', () => mm.apiKey, 'GET'],
      ['/api/v1/orders?pageSize=', 'query.pageSize', () => mm.apiKey, 'GET'],
      ['/api/public/orders?address=0x123', 'query.address', () => undefined, 'GET'],
      [
        `/api/public/orders?address=${encodeURIComponent("0x' OR 1=1 --")}`,
        'query.address',
        () => undefined,
        'GET',
      ],
      ['/api/public/orders?q=0x123', 'query.q', () => undefined, 'GET'],
      [`/api/public/orders?q=${encodeURIComponent("' OR 1=1 --")}`, 'query.q', () => undefined, 'GET'],
      [`/api/public/orders?q=${'a'.repeat(129)}`, 'query.q', () => undefined, 'GET'],
      ['/api/public/orders?q=', 'query.q', () => undefined, 'GET'],
      ['/api/public/orders?page=-1', 'query.page', () => undefined, 'GET'],
      ['/api/public/orders?pageSize=%00', 'query.pageSize', () => undefined, 'GET'],
      ['/api/public/quotes/recent?limit=0', 'query.limit', () => undefined, 'GET'],
      ['/api/public/quotes/recent?limit=101', 'query.limit', () => undefined, 'GET'],
      ['/api/public/quotes/recent?limit=ten', 'query.limit', () => undefined, 'GET'],
    ];

    it.each(cases)('%s → 400 %s', async (url, path, apiKey, method) => {
      const res = await h.http(method, url, { apiKey: apiKey() });
      expectDocumentedError(res, 400, 'VALIDATION_ERROR', path);
    });
  });

  it('after all of it, the state is exactly the setup', async () => {
    const state = await snapshot();
    expect(state).toMatchObject({
      quoteRequests: 3,
      activeQuotes: 1,
      acceptedQuotes: 1,
      orders: 0,
      lpActiveQuotes: 1,
      publicOrders: 0,
    });
  });
});
