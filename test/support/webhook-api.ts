import { expect } from 'vitest';
import type { Harness } from './harness.ts';

/**
 * Webhook suites' settings: private receivers on 127.0.0.1, retries after 300 ms (WEBHOOK_RETRY_SCHEDULE_MS is test
 * only), ten times, so a failing receiver's delivery fails in seconds.
 */
export const SHORT_RETRIES = {
  allowPrivateUrls: true,
  retryDelaysMs: Array.from({ length: 10 }, () => 300),
  pollMs: 100,
};

/** Suites that poll the delivery log several times a second stay under the per-key limit. */
export const POLLING_LIMITS = { apiKey: 100_000, session: 100_000, ip: 100_000 };

/** Only quote requests' events: one per POST /api/v1/quote-requests. */
export const QUOTE_REQUESTS = { events: ['quoteRequest.created'] };

export interface Delivery {
  id: string;
  eventId: number;
  type: string;
  status: string;
  nextAttemptAt: string | null;
  attempts: {
    attempt: number;
    outcome: string;
    statusCode: number | null;
    error: string | null;
    attemptedAt: string;
    nextAttemptAt: string | null;
  }[];
}

/** POST /api/v1/webhooks, 201 asserted. */
export async function createWebhook(
  h: Harness,
  apiKey: string,
  body: Record<string, unknown>,
  options: { baseUrl?: string; headers?: Record<string, string> } = {},
) {
  const res = await h.http('POST', '/api/v1/webhooks', { apiKey, body, ...options });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as {
    id: string;
    url: string;
    secret: string;
    events: string[] | null;
    createdAt: string;
  };
}

/** The endpoint's delivery log as the account sees it (GET …/deliveries, 200 asserted). */
export async function deliveries(h: Harness, apiKey: string, webhookId: string): Promise<Delivery[]> {
  const res = await h.http('GET', `/api/v1/webhooks/${webhookId}/deliveries?limit=100`, { apiKey });
  expect(res.status).toBe(200);
  return res.body.data.deliveries as Delivery[];
}
