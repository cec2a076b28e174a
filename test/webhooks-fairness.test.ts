import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { until } from './support/polling.ts';
import { createWebhook, deliveries, POLLING_LIMITS, QUOTE_REQUESTS } from './support/webhook-api.ts';
import { type ReceivedWebhook, startReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

/**
 * Fair and bounded delivery, end to end: a listening Ferry, real receivers on 127.0.0.1 (some that never answer, so
 * each attempt to them lasts the full 10 s timeout), events caused through the API. The schedule is 2 s, 4 s, then
 * 8 s (WEBHOOK_RETRY_SCHEDULE_MS is test only). Assertions are on counts, order and overlaps of what the receivers
 * saw, and on waits the backoff guarantees (lower bounds), never on how fast something went.
 */
const SCHEDULE = [2000, 4000, ...Array.from({ length: 8 }, () => 8000)];
/** The dispatcher's slots per instance, and the part of them endpoints that are failing may hold. */
const SLOTS = 16;
const FAILING_SLOTS = 8;

/** The largest number of these requests open at one moment (a request is open from its arrival to its close). */
function maxOverlap(requests: readonly ReceivedWebhook[]): number {
  const edges = requests.flatMap((r) => [
    [r.at, 1] as const,
    [r.closedAt ?? Number.POSITIVE_INFINITY, -1] as const,
  ]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) {
    open += step;
    most = Math.max(most, open);
  }
  return most;
}

describe('webhook delivery is fair and bounded', () => {
  let h: Harness;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (answer: WebhookReceiver['answer']) => {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  };
  beforeAll(async () => {
    h = await startHarness({
      webhooks: { allowPrivateUrls: true, retryDelaysMs: SCHEDULE, pollMs: 100 },
      rateLimits: POLLING_LIMITS,
    });
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await h?.close();
  });

  it('backs a failing endpoint off as a whole: one delivery at a time probes it, spaced by the schedule', async () => {
    const mm = await h.createAccount('moneyMover');
    const r = await receiver(() => 500);
    const webhook = await createWebhook(h, mm.apiKey, { url: r.url, ...QUOTE_REQUESTS });
    for (let i = 0; i < 4; i++) await postQuoteRequest(h, mm.apiKey);
    await until('three attempts', async () => r.received.length >= 3);
    const [first, second, third] = r.received as [ReceivedWebhook, ReceivedWebhook, ReceivedWebhook];
    // Each failure holds the whole endpoint back: the next try, whichever delivery makes it, waits out the step of
    // the schedule for the endpoint's failures in a row (not one try per pending delivery, back to back).
    expect(second.at - first.at).toBeGreaterThanOrEqual(SCHEDULE[0]!);
    expect(third.at - second.at).toBeGreaterThanOrEqual(SCHEDULE[1]!);
    // The probes go round the deliveries, in event order: three events tried once each, the fourth still waiting.
    const log = await until('the three attempts recorded', async () => {
      const list = await deliveries(h, mm.apiKey, webhook.id);
      return list.filter((d) => d.attempts.length > 0).length === 3 ? list : null;
    });
    expect(log).toHaveLength(4);
    expect(r.received.slice(0, 3).map((x) => Number(x.headers['webhook-id']))).toEqual(
      log
        .slice(1)
        .map((d) => d.eventId)
        .reverse(),
    );
    expect(r.received.slice(0, 3).every((x) => x.headers['ferry-webhook-attempt'] === '1')).toBe(true);
    const waiting = log[0]!;
    expect([waiting.status, waiting.attempts.length]).toEqual(['pending', 0]);
    // The log says when it will be tried: not before the endpoint's backoff is over.
    expect(Date.parse(waiting.nextAttemptAt!)).toBeGreaterThanOrEqual(third.at + SCHEDULE[2]!);

    // The receiver recovers: the next probe succeeds and the backlog follows, each event once.
    r.answer = () => 200;
    const done = await until('all four delivered', async () => {
      const list = await deliveries(h, mm.apiKey, webhook.id);
      return list.every((d) => d.status === 'delivered') ? list : null;
    });
    const delivered = r.received
      .filter((x) => x.answered === 200)
      .map((x) => Number(x.headers['webhook-id']));
    expect(delivered.sort((x, y) => x - y)).toEqual(done.map((d) => d.eventId).sort((x, y) => x - y));
  }, 60_000);

  it('keeps serving a healthy endpoint while more endpoints than slots hang past the timeout', async () => {
    // 17 receivers that never answer (more than the 16 slots), in two accounts (10 endpoints each at most), and one
    // healthy receiver registered last (the highest id).
    const [a, b] = [await h.createAccount('moneyMover'), await h.createAccount('moneyMover')];
    const hanging: WebhookReceiver[] = [];
    const hangingHooks: { apiKey: string; id: string }[] = [];
    for (let i = 0; i < 17; i++) {
      const r = await receiver(() => null);
      const owner = i < 10 ? a : b;
      hanging.push(r);
      const { id } = await createWebhook(h, owner.apiKey, { url: r.url, ...QUOTE_REQUESTS });
      hangingHooks.push({ apiKey: owner.apiKey, id });
    }
    const healthy = await receiver(() => 200);
    const healthyHook = await createWebhook(h, b.apiKey, { url: healthy.url, ...QUOTE_REQUESTS });

    const N = 6;
    for (let i = 0; i < N; i++) {
      await postQuoteRequest(h, a.apiKey);
      await postQuoteRequest(h, b.apiKey);
    }
    await until('the healthy endpoint received all its deliveries', async () => healthy.received.length >= N);
    // By then no hanging endpoint had more than its one slot and, after its backoff, one probe.
    const perHanging = hanging.map((r) => r.received.length);
    expect(Math.max(...perHanging), `requests per hanging endpoint: ${perHanging}`).toBeLessThanOrEqual(2);
    const log = await deliveries(h, b.apiKey, healthyHook.id);
    expect(healthy.received.map((x) => Number(x.headers['webhook-id']))).toEqual(
      log.map((d) => d.eventId).reverse(),
    );
    expect(healthy.received.every((x) => x.headers['ferry-webhook-attempt'] === '1')).toBe(true);

    // The failing endpoints' probes: once more than FAILING_SLOTS of them had to wait for a slot, none ever had more
    // than that open at once, nor any endpoint more than one request; all hanging ones together no more than the slots.
    await until(
      'twelve hanging endpoints probed after their first timeout',
      async () => hanging.filter((r) => r.received.length >= 2).length >= 12,
      90_000,
    );
    const probes = hanging.flatMap((r) => r.received.slice(1));
    expect(maxOverlap(probes)).toBeLessThanOrEqual(FAILING_SLOTS);
    expect(maxOverlap(hanging.flatMap((r) => r.received))).toBeLessThanOrEqual(SLOTS);
    for (const r of hanging) expect(maxOverlap(r.received)).toBe(1);
    for (const { apiKey, id } of hangingHooks) {
      expect((await h.http('DELETE', `/api/v1/webhooks/${id}`, { apiKey })).status).toBe(200);
    }
  }, 150_000);
});
