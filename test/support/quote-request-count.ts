import { expect } from 'vitest';
import type { Harness } from './harness.ts';

/**
 * The money mover's quote requests of the last 30 days, read back over the API: a refusal that must write
 * nothing leaves it unchanged.
 */
export async function countQuoteRequests(h: Harness, apiKey: string): Promise<number> {
  const res = await h.http('GET', '/api/v1/quote-requests?timeWindow=2592000', { apiKey });
  expect(res.status).toBe(200);
  return res.body.total as number;
}
