import { quoteRequestBody } from './fixtures.ts';
import type { Harness } from './harness.ts';

/** The ids of one real order (request 1, accepted and executed) and one open request with an active quote. */
export interface Fixtures {
  requestId: string;
  quoteId: string;
  orderId: string;
  signature: string;
  openRequestId: string;
  openQuoteId: string;
  openOrderId: string;
}

export interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  path: (f: Fixtures) => string;
  /** A body valid for the schema, so that only the credentials decide the answer. */
  body?: (f: Fixtures, h: Harness) => unknown;
}

export const SIGNATURE_PLACEHOLDER = `0x${'11'.repeat(65)}`;

export const ENDPOINTS: Endpoint[] = [
  { name: 'GET /api/v1/quote-requests', method: 'GET', path: () => '/api/v1/quote-requests' },
  {
    name: 'POST /api/v1/quote-requests',
    method: 'POST',
    path: () => '/api/v1/quote-requests',
    body: (_f, h) => quoteRequestBody(h),
  },
  {
    name: 'GET /api/v1/quote-requests/{id}',
    method: 'GET',
    path: (f) => `/api/v1/quote-requests/${f.requestId}`,
  },
  {
    name: 'POST /api/v1/quotes',
    method: 'POST',
    path: () => '/api/v1/quotes',
    body: (f) => ({ quoteRequestId: f.openRequestId, outputAmount: '990000' }),
  },
  { name: 'GET /api/v1/quotes', method: 'GET', path: () => '/api/v1/quotes' },
  { name: 'GET /api/v1/quotes/{id}', method: 'GET', path: (f) => `/api/v1/quotes/${f.quoteId}` },
  {
    name: 'POST /api/v1/quotes/{id}/accept',
    method: 'POST',
    path: (f) => `/api/v1/quotes/${f.openQuoteId}/accept`,
    body: (f) => ({ quoteId: f.openQuoteId }),
  },
  {
    name: 'POST /api/v1/swaps',
    method: 'POST',
    path: () => '/api/v1/swaps',
    body: (f) => ({ orderId: f.openOrderId, quoteId: f.openQuoteId, signature: SIGNATURE_PLACEHOLDER }),
  },
  { name: 'GET /api/v1/orders', method: 'GET', path: () => '/api/v1/orders' },
  { name: 'GET /api/v1/orders/{id}', method: 'GET', path: (f) => `/api/v1/orders/${f.orderId}` },
];

export const byName = (name: string): Endpoint => {
  const endpoint = ENDPOINTS.find((e) => e.name === name);
  if (!endpoint) throw new Error(`no endpoint ${name}`);
  return endpoint;
};
