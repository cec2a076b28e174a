import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../sdk/src/index.ts';
import { expectError, postQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { until } from './support/polling.ts';
import { startTwoInstances, type TwoInstances } from './support/two-instances.ts';
import { createWebhook, deliveries, QUOTE_REQUESTS, SHORT_RETRIES } from './support/webhook-api.ts';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

/**
 * Webhooks end to end: a listening Ferry, real receivers on 127.0.0.1, events caused through the API. Retries wait
 * 300 ms (SHORT_RETRIES), ten times, so a failing receiver's delivery fails in seconds.
 */
describe('webhooks', () => {
  let h: Harness;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (answer?: WebhookReceiver['answer']) => {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    h = await startHarness({ webhooks: SHORT_RETRIES });
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await h?.close();
  });

  it('retries a receiver that answers 500 twice; the third attempt is signed and verifies with standardwebhooks', async () => {
    const mm = await h.createAccount('moneyMover');
    const r = await receiver(({ attempt }) => (attempt <= 2 ? 500 : 204));
    const webhook = await createWebhook(h, mm.apiKey, { url: r.url, ...QUOTE_REQUESTS });
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook).toMatchObject({ url: r.url, events: ['quoteRequest.created'] });
    const requestId = (await postQuoteRequest(h, mm.apiKey)).body.data.quoteId as string;

    await until('three attempts', async () => r.received.length >= 3);
    expect(r.received.map((x) => x.answered)).toEqual([500, 500, 204]);
    const ids = new Set(r.received.map((x) => x.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const last = r.received[2]!;
    const verified = new Webhook(webhook.secret).verify(last.body, last.headers) as Record<string, unknown>;
    expect(verified).toMatchObject({ type: 'quoteRequest.created', data: { id: requestId, status: 'open' } });
    expect(Object.keys(verified).sort()).toEqual(['data', 'id', 'occurredAt', 'type']);
    expect(String(verified.id)).toBe(last.headers['webhook-id']);
    // Public view only: no account id in what leaves Ferry.
    expect(last.body).not.toContain(mm.id);
    // The SDK's verifyWebhook agrees, and refuses a changed body or a stale timestamp with its typed error.
    expect(await verifyWebhook(webhook.secret, last.headers, last.body)).toEqual(verified);
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: unknown) => (error instanceof WebhookVerificationError ? error.reason : error),
      );
    expect(await refusal(verifyWebhook(webhook.secret, last.headers, `${last.body} `))).toBe('signature');
    const later = new Date((Number(last.headers['webhook-timestamp']) + 301) * 1000);
    expect(await refusal(verifyWebhook(webhook.secret, last.headers, last.body, { now: later }))).toBe(
      'timestamp',
    );
    expect(await refusal(verifyWebhook(webhook.secret, {}, last.body))).toBe('missing-header');
    // Signed with another secret, it does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(last.body, last.headers),
    ).toThrow();

    const [delivery, ...others] = await until('the log shows the delivery', async () => {
      const list = await deliveries(h, mm.apiKey, webhook.id);
      return list[0]?.status === 'delivered' ? list : null;
    });
    expect(others).toEqual([]);
    expect(delivery).toMatchObject({
      eventId: Number(verified.id),
      type: 'quoteRequest.created',
      status: 'delivered',
    });
    expect(delivery!.attempts.map((a) => [a.attempt, a.outcome, a.statusCode, a.error])).toEqual([
      [1, 'retry', 500, 'HTTP 500'],
      [2, 'retry', 500, 'HTTP 500'],
      [3, 'delivered', 204, null],
    ]);
    const metrics = await h.http('GET', '/metrics');
    expect(metrics.body).toMatch(/ferry_webhook_deliveries_total\{outcome="retry"\} [1-9]/);
    expect(metrics.body).toMatch(/ferry_webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
  });

  it('keeps deliveries across a restart: sent once the receiver is back and Ferry runs again', async () => {
    const mm = await h.createAccount('moneyMover');
    const r = await receiver();
    await r.stop();
    const webhook = await createWebhook(h, mm.apiKey, { url: r.url, ...QUOTE_REQUESTS });
    await postQuoteRequest(h, mm.apiKey);
    await postQuoteRequest(h, mm.apiKey);
    await until('a refused connection recorded', async () => {
      const list = await deliveries(h, mm.apiKey, webhook.id);
      return list.length === 2 && list.every((d) => d.attempts[0]?.error === 'connection refused');
    });
    await h.app.close();
    await r.start();
    expect(r.received).toEqual([]);
    await h.restart();

    await until('both events after the restart', async () => r.received.length >= 2);
    const list = await until('both delivered', async () => {
      const current = await deliveries(h, mm.apiKey, webhook.id);
      return current.every((d) => d.status === 'delivered') ? current : null;
    });
    // In event order, each event once (its retries answered nothing).
    expect(r.received.map((x) => Number(x.headers['webhook-id']))).toEqual(
      list.map((d) => d.eventId).reverse(),
    );
  });

  it('marks a delivery failed after its retries, and sends it again on a manual retry', async () => {
    const mm = await h.createAccount('moneyMover');
    const r = await receiver(() => 503);
    const webhook = await createWebhook(h, mm.apiKey, { url: r.url, ...QUOTE_REQUESTS });
    await postQuoteRequest(h, mm.apiKey);
    const [failed] = await until('the delivery failed', async () => {
      const list = await deliveries(h, mm.apiKey, webhook.id);
      return list[0]?.status === 'failed' ? list : null;
    });
    expect(failed!.attempts).toHaveLength(11);
    expect(failed!.attempts.at(-1)).toMatchObject({ outcome: 'failed', statusCode: 503 });
    expect(r.received).toHaveLength(11);

    r.answer = () => 200;
    const retried = await h.http('POST', `/api/v1/webhooks/${webhook.id}/deliveries/${failed!.id}/retry`, {
      apiKey: mm.apiKey,
    });
    expect(retried.status).toBe(202);
    expect(retried.body.data).toEqual({ id: failed!.id, status: 'pending' });
    const [delivered] = await until('delivered on retry', async () => {
      const list = await deliveries(h, mm.apiKey, webhook.id);
      return list[0]?.status === 'delivered' ? list : null;
    });
    expect(delivered!.attempts.at(-1)).toMatchObject({ attempt: 12, outcome: 'delivered', statusCode: 200 });

    const other = await h.createAccount('moneyMover');
    const unknown = `/api/v1/webhooks/${webhook.id}/deliveries/${failed!.id}/retry`;
    expectError(
      await h.http('POST', unknown, { apiKey: other.apiKey }),
      404,
      'WEBHOOK_NOT_FOUND',
      'params.id',
    );
    const missing = `/api/v1/webhooks/${webhook.id}/deliveries/whd_nothing/retry`;
    expectError(
      await h.http('POST', missing, { apiKey: mm.apiKey }),
      404,
      'WEBHOOK_NOT_FOUND',
      'params.deliveryId',
    );
  });

  it('lists endpoints without secrets, refuses an 11th, unknown event types, and no credentials', async () => {
    const mm = await h.createAccount('moneyMover');
    const secrets: string[] = [];
    for (let i = 0; i < 10; i++) {
      secrets.push((await createWebhook(h, mm.apiKey, { url: `http://127.0.0.1:9/hook-${i}` })).secret);
    }
    const eleventh = await h.http('POST', '/api/v1/webhooks', {
      apiKey: mm.apiKey,
      body: { url: 'http://127.0.0.1:9/x' },
    });
    expectError(eleventh, 409, 'WEBHOOK_LIMIT_REACHED', 'body');
    expect(eleventh.body.error).toContain('at most 10');

    const listed = await h.http('GET', '/api/v1/webhooks', { apiKey: mm.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data.webhooks).toHaveLength(10);
    expect(listed.body.data.webhooks[0]).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: 'http://127.0.0.1:9/hook-0',
      events: null,
      createdAt: expect.any(String),
    });
    for (const secret of secrets) expect(JSON.stringify(listed.body)).not.toContain(secret);

    const other = await h.createAccount('liquidityProvider');
    const typo = await h.http('POST', '/api/v1/webhooks', {
      apiKey: other.apiKey,
      body: { url: 'http://127.0.0.1:9/x', events: ['order.updated', 'order.settled'] },
    });
    expectError(typo, 400, 'VALIDATION_ERROR', 'body.events.1');
    expect((await h.http('GET', '/api/v1/webhooks', { apiKey: other.apiKey })).body.data.webhooks).toEqual(
      [],
    );
    expectError(await h.http('GET', '/api/v1/webhooks'), 401, 'UNAUTHORIZED', 'headers.x-api-key');
    const foreign = listed.body.data.webhooks[0].id as string;
    expectError(
      await h.http('DELETE', `/api/v1/webhooks/${foreign}`, { apiKey: other.apiKey }),
      404,
      'WEBHOOK_NOT_FOUND',
    );
  });

  it('stops delivering to a deleted endpoint', async () => {
    const mm = await h.createAccount('moneyMover');
    const doomed = await receiver();
    const sentinel = await receiver();
    const gone = await createWebhook(h, mm.apiKey, { url: doomed.url, ...QUOTE_REQUESTS });
    await createWebhook(h, mm.apiKey, { url: sentinel.url, ...QUOTE_REQUESTS });
    await postQuoteRequest(h, mm.apiKey);
    await until(
      'both received the first event',
      async () => doomed.received.length === 1 && sentinel.received.length === 1,
    );

    const deleted = await h.http('DELETE', `/api/v1/webhooks/${gone.id}`, { apiKey: mm.apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id: gone.id });
    expectError(
      await h.http('GET', `/api/v1/webhooks/${gone.id}/deliveries`, { apiKey: mm.apiKey }),
      404,
      'WEBHOOK_NOT_FOUND',
    );
    await postQuoteRequest(h, mm.apiKey);
    // The sentinel's delivery of the second event is made in the same transaction the deleted one's would have been.
    await until('the sentinel received the second event', async () => sentinel.received.length === 2);
    expect(doomed.received).toHaveLength(1);
  });
});

describe('webhooks without private URLs (WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
  let h: Harness;
  let r: WebhookReceiver;
  beforeAll(async () => {
    h = await startHarness({ webhooks: { ...SHORT_RETRIES, allowPrivateUrls: false, retryDelaysMs: [300] } });
    r = await startReceiver();
  });
  afterAll(async () => {
    await r?.stop();
    await h?.close();
  });

  it('refuses http and private addresses when registering', async () => {
    const mm = await h.createAccount('moneyMover');
    for (const url of [
      'http://example.com/hook',
      'ftp://example.com/hook',
      'not a url',
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://172.16.0.1/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
      'https://[fd00::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://0.0.0.0/hook',
    ]) {
      const res = await h.http('POST', '/api/v1/webhooks', { apiKey: mm.apiKey, body: { url } });
      expectError(res, 400, 'VALIDATION_ERROR', 'body.url');
    }
    await createWebhook(h, mm.apiKey, { url: 'https://93.184.215.14/hook' });
  });

  it('refuses at delivery a host name that resolves to loopback, without connecting', async () => {
    const mm = await h.createAccount('moneyMover');
    const webhook = await createWebhook(h, mm.apiKey, {
      url: `https://localhost:${r.port}/hook`,
      ...QUOTE_REQUESTS,
    });
    await postQuoteRequest(h, mm.apiKey);
    const [delivery] = await until('failed after refusals', async () => {
      const list = await deliveries(h, mm.apiKey, webhook.id);
      return list[0]?.status === 'failed' ? list : null;
    });
    expect(delivery!.attempts.map((a) => a.outcome)).toEqual(['refused', 'failed']);
    expect(delivery!.attempts[0]!.error).toMatch(/^refused: localhost resolves to a loopback/);
    expect(delivery!.attempts[0]!.statusCode).toBeNull();
    expect(r.connections).toBe(0);
    const metrics = await h.http('GET', '/metrics');
    expect(metrics.body).toMatch(/ferry_webhook_deliveries_total\{outcome="refused"\} 2/);
  });
});

describe.skipIf(!process.env.FERRY_TEST_PG)('webhooks from two instances on one PostgreSQL database', () => {
  let two: TwoInstances;
  let r: WebhookReceiver;
  beforeAll(async () => {
    two = await startTwoInstances({ config: { webhooks: SHORT_RETRIES } });
    // Each event's first attempt fails: its retry is a second attempt either instance may claim.
    r = await startReceiver(({ attempt }) => (attempt === 1 ? 500 : 200));
  });
  afterAll(async () => {
    await r?.stop();
    await two?.close();
  });

  it('makes each attempt once', async () => {
    const { h } = two;
    const mm = await h.createAccount('moneyMover');
    const webhook = await createWebhook(h, mm.apiKey, { url: r.url, ...QUOTE_REQUESTS });
    for (let i = 0; i < 8; i++) {
      await postQuoteRequest(h, mm.apiKey);
      const viaB = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        baseUrl: two.urlB,
        body: (await import('./support/fixtures.ts')).quoteRequestBody(h),
      });
      expect(viaB.status).toBe(201);
    }
    const list = await until('16 events delivered', async () => {
      const current = await deliveries(h, mm.apiKey, webhook.id);
      return current.length === 16 && current.every((d) => d.status === 'delivered') ? current : null;
    });
    const seen = new Map<string, number>();
    for (const x of r.received) {
      const key = `${x.headers['webhook-id']}#${x.headers['ferry-webhook-attempt']}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(r.received).toHaveLength(32);
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(16);
    for (const d of list) expect(d.attempts.map((a) => a.outcome)).toEqual(['retry', 'delivered']);
  });
});
