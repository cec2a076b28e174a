import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

/** Every operation with its operationId: generators for other languages name methods from it, so it is stable. */
const ENDPOINTS = [
  ['get', '/api/v1/quote-requests', 'listQuoteRequests'],
  ['post', '/api/v1/quote-requests', 'createQuoteRequest'],
  ['get', '/api/v1/quote-requests/{id}', 'getQuoteRequest'],
  ['post', '/api/v1/quotes', 'createQuote'],
  ['get', '/api/v1/quotes', 'listQuotes'],
  ['get', '/api/v1/quotes/{id}', 'getQuote'],
  ['post', '/api/v1/quotes/{id}/accept', 'acceptQuote'],
  ['post', '/api/v1/swaps', 'executeSwap'],
  ['get', '/api/v1/orders', 'listOrders'],
  ['get', '/api/v1/orders/{id}', 'getOrder'],
  ['get', '/api/v1/account', 'getAccount'],
  ['get', '/api/public/orders', 'listPublicOrders'],
  ['get', '/api/public/orders/{id}', 'getPublicOrder'],
  ['get', '/api/public/quotes/recent', 'listRecentQuotes'],
  ['get', '/api/public/chains', 'listChains'],
  ['get', '/api/public/stream', 'streamEvents'],
  ['get', '/ws', 'openWebSocket'],
  ['get', '/auth/nonce', 'getSignInNonce'],
  ['post', '/auth/verify', 'verifySignIn'],
  ['post', '/auth/logout', 'logout'],
  ['get', '/healthz', 'getLiveness'],
  ['get', '/readyz', 'getReadiness'],
] as const;

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
}

function operationsOf(document: { paths: Record<string, Record<string, Operation>> }) {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method, path, op })),
  );
}

describe('OpenAPI document, reference page and health', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('serves OpenAPI 3.1 at version 1.0.0 with every endpoint, described', async () => {
    const res = await h.http('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('1.0.0');
    for (const [method, path, operationId] of ENDPOINTS) {
      const op = res.body.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.summary, `${method} ${path} summary`).toBeTruthy();
      expect(op.description, `${method} ${path} description`).toBeTruthy();
      expect(op.operationId, `${method} ${path} operationId`).toBe(operationId);
    }
    expect(res.body.components.securitySchemes.apiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
    const body = res.body.paths['/api/v1/quote-requests'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(
      expect.arrayContaining([
        'recipient',
        'offerer',
        'inputToken',
        'outputToken',
        'inputAmount',
        'inputChain',
        'outputChain',
      ]),
    );
    expect(res.body.paths['/api/v1/orders'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['status', 'page', 'pageSize', 'accountType', 'includeQuote']),
    );
  });

  it('names every operation and states its security, public ones with security: []', async () => {
    const document = (await h.http('GET', '/openapi.json')).body;
    const operations = operationsOf(document);
    const ids = operations.map(({ op }) => op.operationId);
    for (const { method, path, op } of operations) {
      expect(op.operationId, `${method} ${path} operationId`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.security, `${method} ${path} security`).toBeInstanceOf(Array);
      for (const requirement of op.security ?? []) {
        for (const scheme of Object.keys(requirement))
          expect(document.components.securitySchemes).toHaveProperty(scheme);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    const securityOf = (method: string, path: string) => document.paths[path][method].security;
    for (const path of ['/healthz', '/readyz', '/auth/nonce', '/api/public/orders', '/api/public/chains'])
      expect(securityOf('get', path), path).toEqual([]);
    expect(securityOf('post', '/auth/verify')).toEqual([]);
    // A credential is optional on the WebSocket and unlocks the quoteRequests and account channels.
    expect(securityOf('get', '/ws')).toEqual([{}, { apiKey: [] }, { session: [] }]);
    expect(securityOf('post', '/auth/logout')).toEqual([{ session: [] }]);
    expect(securityOf('post', '/api/v1/swaps')).toEqual([{ apiKey: [] }, { session: [] }]);
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    for (const tag of document.tags) expect(tag.description, tag.name).toBeTruthy();
  });

  it('declares security as the server enforces it: anonymous calls are refused exactly where it is required', async () => {
    const document = (await h.http('GET', '/openapi.json')).body;
    for (const { method, path, op } of operationsOf(document)) {
      // Without a stated `security` a reader cannot tell public from forgotten.
      const security = op.security ?? [{ undeclared: [] }];
      const anonymousAllowed = security.length === 0 || security.some((r) => Object.keys(r).length === 0);
      const url = `${h.baseUrl}${path.replaceAll('{id}', '01JAAAAAAAAAAAAAAAAAAAAAAA')}`;
      const body = method === 'post' ? '{}' : undefined;
      const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
      // Only the status is read: the event stream's body never ends.
      const controller = new AbortController();
      const res = await fetch(url, {
        method: method.toUpperCase(),
        headers,
        body,
        signal: controller.signal,
      });
      controller.abort();
      if (anonymousAllowed) expect(res.status, `${method} ${path}`).not.toBe(401);
      else expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('serves the interactive reference page at /docs', async () => {
    const res = await h.http('GET', '/docs/');
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('swagger-ui');
  });

  it('reports liveness and readiness', async () => {
    expect((await h.http('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await h.http('GET', '/readyz')).body).toEqual({ status: 'ready' });
  });
});
