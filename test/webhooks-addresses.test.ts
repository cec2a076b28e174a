import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, postQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { until } from './support/polling.ts';
import {
  createWebhook,
  deliveries,
  POLLING_LIMITS,
  QUOTE_REQUESTS,
  SHORT_RETRIES,
} from './support/webhook-api.ts';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

/**
 * Webhook addresses are checked at every delivery, not only at registration: endpoints registered while
 * WEBHOOK_ALLOW_PRIVATE_URLS was on are not reached once the server restarts with it off (same database), IP
 * literals included; a refusal never tells the account what a name resolved to. And the signing secret never lands
 * in the idempotency table, while a replay of the creation still answers with it. Real receivers on 127.0.0.1.
 */
describe('webhook addresses checked at every delivery', () => {
  let h: Harness;
  const receivers: WebhookReceiver[] = [];
  beforeAll(async () => {
    // One retry: a refused delivery is `refused` then `failed`, in a second.
    h = await startHarness({
      webhooks: { ...SHORT_RETRIES, retryDelaysMs: [300] },
      rateLimits: POLLING_LIMITS,
    });
    for (let i = 0; i < 3; i++) receivers.push(await startReceiver());
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await h?.close();
  });

  it('does not deliver to private endpoints registered while allowed once the setting is off', async () => {
    const [plain, tls, named] = receivers as [WebhookReceiver, WebhookReceiver, WebhookReceiver];
    const mm = await h.createAccount('moneyMover');
    const literal = await createWebhook(h, mm.apiKey, { url: plain.url, ...QUOTE_REQUESTS });
    // https to an IP literal: never resolved, so no lookup ever checked it.
    const tlsLiteral = await createWebhook(h, mm.apiKey, {
      url: `https://127.0.0.1:${tls.port}/hooks`,
      ...QUOTE_REQUESTS,
    });
    const byName = await createWebhook(h, mm.apiKey, {
      url: `https://localhost:${named.port}/hooks`,
      ...QUOTE_REQUESTS,
    });
    await postQuoteRequest(h, mm.apiKey);
    await until('the plain receiver got the first event', async () => plain.received.length === 1);
    // Settled before the restart: delivered, or failed after its one retry (TLS to a plain HTTP receiver).
    await until('every endpoint done with the first event', async () => {
      for (const id of [literal.id, tlsLiteral.id, byName.id]) {
        const [first] = await deliveries(h, mm.apiKey, id);
        if (first === undefined || first.status === 'pending') return false;
      }
      return true;
    });
    // While allowed, Ferry connected to both literals and the name (the https ones fail their TLS handshake).
    const before = receivers.map((r) => r.connections);
    expect(before.every((n) => n >= 1)).toBe(true);

    await h.restart({ webhooks: { ...h.config.webhooks, allowPrivateUrls: false } });
    await postQuoteRequest(h, mm.apiKey);
    const logs = await until('the second event refused everywhere', async () => {
      const all = await Promise.all(
        [literal.id, tlsLiteral.id, byName.id].map((id) => deliveries(h, mm.apiKey, id)),
      );
      return all.every((list) => list.length === 2 && list[0]?.status === 'failed') ? all : null;
    });
    expect(receivers.map((r) => r.connections)).toEqual(before);
    expect(plain.received).toHaveLength(1);
    const [plainLog, tlsLog, namedLog] = logs.map((list) => list[0]!);
    for (const d of [plainLog, tlsLog, namedLog]) {
      expect(d!.attempts.map((a) => [a.outcome, a.statusCode])).toEqual([
        ['refused', null],
        ['failed', null],
      ]);
    }
    expect(plainLog!.attempts[0]!.error).toMatch(/^refused: the URL must be an https URL/);
    expect(tlsLog!.attempts[0]!.error).toMatch(/^refused: the URL must be a public address: 127\.0\.0\.1 is/);
    expect(namedLog!.attempts[0]!.error).toMatch(/^refused: localhost resolves to a loopback/);
    // What localhost resolved to is Ferry's business: not in the account's view of the endpoint at all.
    const view = await h.http('GET', `/api/v1/webhooks/${byName.id}/deliveries`, { apiKey: mm.apiKey });
    expect(JSON.stringify(view.body)).not.toMatch(/127\.0\.0\.1|::1\b|\[::1\]/);
  }, 60_000);
});

describe('webhook secrets and the idempotency table', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ webhooks: SHORT_RETRIES });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('stores the creation without its secret; a replay answers with the same secret', async () => {
    const mm = await h.createAccount('moneyMover');
    const headers = { 'idempotency-key': 'create-hook-1' };
    const body = { url: 'http://127.0.0.1:9/hook', ...QUOTE_REQUESTS };
    const first = await h.http('POST', '/api/v1/webhooks', { apiKey: mm.apiKey, body, headers });
    expect(first.status).toBe(201);
    const { secret, id } = first.body.data as { secret: string; id: string };
    expect(secret).toMatch(/^whsec_/);

    const rows = await h.app.database.db.selectFrom('idempotency_keys').selectAll().execute();
    const row = rows.find((r) => r.key === 'create-hook-1');
    expect(Number(row?.status_code)).toBe(201);
    const stored = JSON.parse(row!.response_body!) as { data: Record<string, unknown> };
    expect(stored.data).toEqual({ id, url: body.url, events: body.events, createdAt: expect.any(String) });
    for (const r of rows) {
      expect(`${r.response_body} ${r.request_hash}`).not.toContain(secret.slice('whsec_'.length));
    }

    h.clock.advance(1);
    const replay = await h.http('POST', '/api/v1/webhooks', { apiKey: mm.apiKey, body, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const listed = await h.http('GET', '/api/v1/webhooks', { apiKey: mm.apiKey });
    expect(listed.body.data.webhooks.map((w: { id: string }) => w.id)).toEqual([id]);

    expectError(
      await h.http('POST', '/api/v1/webhooks', {
        apiKey: mm.apiKey,
        body: { ...body, url: 'http://127.0.0.1:9/other' },
        headers,
      }),
      409,
      'IDEMPOTENCY_KEY_REUSED',
      'headers.idempotency-key',
    );
    // Deleted since: the secret is gone with it, and the replay says so rather than answering without it.
    expect((await h.http('DELETE', `/api/v1/webhooks/${id}`, { apiKey: mm.apiKey })).status).toBe(200);
    expectError(
      await h.http('POST', '/api/v1/webhooks', { apiKey: mm.apiKey, body, headers }),
      404,
      'WEBHOOK_NOT_FOUND',
      'headers.idempotency-key',
    );
  });
});
