import { expect } from 'vitest';
import { ERROR_STATUS } from '../../src/domain/app-error.ts';
import type { Harness, HttpResponse } from './harness.ts';

/** A valid quote-request body: the harness wallets, USDC from chain A to chain B, 1 USDC in. */
export function quoteRequestBody(
  h: Harness,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    recipient: h.otherWallet.address,
    offerer: h.offerer.address,
    inputToken: h.usdcA,
    outputToken: h.usdcB,
    inputAmount: '1000000',
    inputChain: h.chainA,
    outputChain: h.chainB,
    ...overrides,
  };
}

/** POSTs a quote request (201 asserted) and returns the whole response. */
export async function postQuoteRequest(h: Harness, apiKey: string, overrides: Record<string, unknown> = {}) {
  const res = await h.http('POST', '/api/v1/quote-requests', {
    apiKey,
    body: quoteRequestBody(h, overrides),
  });
  expect(res.status).toBe(201);
  return res;
}

/** Creates a quote request (201 asserted) and returns its id. */
export async function createQuoteRequest(
  h: Harness,
  apiKey: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await postQuoteRequest(h, apiKey, overrides);
  return res.body.data.quoteId as string;
}

/** Quotes a request as an LP (201 asserted) and returns the response's data. */
export async function createQuote(
  h: Harness,
  lpKey: string,
  quoteRequestId: string,
  outputAmount = '990000',
  extra: Record<string, unknown> = {},
) {
  const res = await h.http('POST', '/api/v1/quotes', {
    apiKey: lpKey,
    body: { quoteRequestId, outputAmount, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.data as { quoteId: string; orderId: string; typedData: any; quote: any };
}

/**
 * Every error answers {error, code, details:[{path, message}]} with the status the error table gives its code;
 * `path`, when given, must be among the detail paths.
 */
export function expectError(res: HttpResponse, status: number, code: string, path?: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS]).toBe(status);
  expect(res.body).toMatchObject({ error: expect.any(String), code, details: expect.any(Array) });
  expect(res.body.error).not.toBe('');
  for (const detail of res.body.details) {
    expect(detail).toEqual({ path: expect.any(String), message: expect.any(String) });
  }
  if (path !== undefined) {
    expect(res.body.details.length).toBeGreaterThan(0);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  }
}

/** Accepts a quote as its money mover (200 asserted) and returns the response. */
export async function acceptQuote(h: Harness, apiKey: string, quoteId: string) {
  const res = await h.http('POST', `/api/v1/quotes/${quoteId}/accept`, { apiKey, body: { quoteId } });
  expect(res.status).toBe(200);
  return res;
}

/** Harness config for suites that need the settlement worker running in the background. */
export const WORKER_ON = {
  enabled: true,
  pollMs: 50,
  leaseMs: 5000,
  relayerKey: null,
  attesterKey: null,
  faultInject: [],
} as const;
