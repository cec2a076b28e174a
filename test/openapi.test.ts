import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.ts';

const ENDPOINTS = [
  ['get', '/api/v1/quote-requests'],
  ['post', '/api/v1/quote-requests'],
  ['get', '/api/v1/quote-requests/{id}'],
  ['post', '/api/v1/quotes'],
  ['get', '/api/v1/quotes'],
  ['get', '/api/v1/quotes/{id}'],
  ['post', '/api/v1/quotes/{id}/accept'],
  ['post', '/api/v1/swaps'],
  ['get', '/api/v1/orders'],
  ['get', '/api/v1/orders/{id}'],
  ['get', '/api/v1/account'],
  ['get', '/api/public/orders'],
  ['get', '/api/public/quotes/recent'],
  ['get', '/api/public/chains'],
  ['get', '/auth/nonce'],
  ['post', '/auth/verify'],
  ['post', '/auth/logout'],
  ['get', '/healthz'],
  ['get', '/readyz'],
] as const;

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
    for (const [method, path] of ENDPOINTS) {
      const op = res.body.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.summary, `${method} ${path} summary`).toBeTruthy();
      expect(op.description, `${method} ${path} description`).toBeTruthy();
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
