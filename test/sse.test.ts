import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { SseClient } from './support/stream-clients.ts';

/**
 * GET /api/public/stream with the real `eventsource` client. Every stream here runs on 127.0.0.1, so anonymous
 * streams share one IP slot pool (3): tests that need several streams authenticate them with API keys.
 */
describe('server-sent events', () => {
  let h: Harness;
  let url: string;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let lp2: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness({
      streams: {
        maxPerClient: 3,
        heartbeatMs: 100,
        replayMaxEvents: 5,
        maxBufferBytes: 1024 * 1024,
        pollMs: 500,
        replayMaxPending: 10_000,
      },
    });
    url = `${h.baseUrl}/api/public/stream`;
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp one');
    lp2 = await h.createAccount('liquidityProvider', 'lp two');
  });
  afterAll(async () => {
    await h?.close();
  });

  async function quote(apiKey: string, quoteRequestId: string, outputAmount: string) {
    const created = await h.http('POST', '/api/v1/quotes', {
      apiKey,
      body: { quoteRequestId, outputAmount },
    });
    expect(created.status).toBe(201);
    return created.body.data as { quoteId: string };
  }

  async function watcherKey(): Promise<string> {
    return (await h.createAccount('moneyMover', 'stream watcher')).apiKey;
  }

  it('delivers every event caused through the API, with its id, as the public view', async () => {
    const client = await SseClient.open(url, { 'x-api-key': await watcherKey() });
    const requestId = await createQuoteRequest(h, mm.apiKey);
    const q = await quote(lp.apiKey, requestId, '990000');
    await client.waitFor((e) => e.type === 'quote.created');
    client.close();

    expect(client.events.map((e) => e.type)).toEqual(['quoteRequest.created', 'quote.created']);
    const [created, quoted] = client.events;
    for (const event of client.events) {
      expect(event.id).toMatch(/^\d+$/);
      expect(event.body.id).toBe(Number(event.id));
      expect(event.body.type).toBe(event.type);
      expect(new Date(event.body.occurredAt).toISOString()).toBe(event.body.occurredAt);
      // Public view: no account ids anywhere in the payload.
      expect(JSON.stringify(event.body)).not.toContain(mm.id);
      expect(JSON.stringify(event.body)).not.toContain(lp.id);
    }
    expect(Number(quoted!.id)).toBeGreaterThan(Number(created!.id));
    expect(created!.body.data).toMatchObject({
      id: requestId,
      inputAmount: '1000000',
      inputChain: h.chainA,
      outputChain: h.chainB,
      status: 'open',
    });
    expect(quoted!.body.data).toMatchObject({
      id: q.quoteId,
      quoteRequestId: requestId,
      outputAmount: '990000',
      status: 'active',
    });
  });

  it('a reconnect with Last-Event-ID replays exactly the missed events: none lost, none twice', async () => {
    const reference = await SseClient.open(url, { 'x-api-key': await watcherKey() });
    const key = await watcherKey();
    const first = await SseClient.open(url, { 'x-api-key': key });

    const requestId = await createQuoteRequest(h, mm.apiKey);
    await quote(lp.apiKey, requestId, '990000');
    await first.waitFor((e) => e.type === 'quote.created');
    const lastSeen = first.events.at(-1)!.id;
    first.close();

    // Missed while disconnected: a second quote, then the acceptance (accepted + declined).
    const q2 = await quote(lp2.apiKey, requestId, '995000');
    const accepted = await h.http('POST', `/api/v1/quotes/${q2.quoteId}/accept`, { apiKey: mm.apiKey });
    expect(accepted.status).toBe(200);
    const missedUpTo = await reference.waitFor((e) => e.type === 'quote.declined');

    const second = await SseClient.open(url, { 'x-api-key': key, 'last-event-id': lastSeen });
    await second.waitFor((e) => e.id === missedUpTo.id);
    // A client that cannot send headers passes the id in the query instead.
    const third = await SseClient.open(`${url}?lastEventId=${lastSeen}`, { 'x-api-key': key });
    await third.waitFor((e) => e.id === missedUpTo.id);

    // And live delivery continues after the replay.
    const next = await createQuoteRequest(h, mm.apiKey);
    for (const client of [reference, second, third]) {
      await client.waitFor((e) => e.type === 'quoteRequest.created' && e.body.data.id === next);
      client.close();
    }

    expect(second.events.map((e) => e.type)).toEqual([
      'quote.created',
      'quote.accepted',
      'quote.declined',
      'quoteRequest.created',
    ]);
    const ids = (client: SseClient) => client.events.map((e) => e.id);
    expect([...ids(first), ...ids(second)]).toEqual(ids(reference));
    expect(ids(third)).toEqual(ids(second));
    expect(second.events.map((e) => e.body)).toEqual(
      reference.events.slice(first.events.length).map((e) => e.body),
    );
  });

  it('a gap older than the replay window gets stream.reset, then live events', async () => {
    const key = await watcherKey();
    // More than 5 events (the window of this suite) follow id 0 by now.
    const reset = await SseClient.open(url, { 'x-api-key': key, 'last-event-id': '0' });
    const notice = await reset.waitFor((e) => e.type === 'stream.reset');
    expect(notice.body.lastEventId).toBe(0);
    expect(notice.id).toBe(String(notice.body.resumedAfter));
    expect(notice.body.resumedAfter).toBeGreaterThan(5);

    // An id the log never had (another deployment's) is a reset too, not a silent gap.
    const future = await SseClient.open(url, { 'x-api-key': key, 'last-event-id': '999999999' });
    const futureNotice = await future.waitFor((e) => e.type === 'stream.reset');
    expect(futureNotice.body.lastEventId).toBe(999999999);
    expect(futureNotice.body.resumedAfter).toBe(notice.body.resumedAfter);

    const requestId = await createQuoteRequest(h, mm.apiKey);
    for (const client of [reset, future]) {
      const live = await client.waitFor((e) => e.type === 'quoteRequest.created');
      client.close();
      expect(live.body.data.id).toBe(requestId);
      expect(Number(live.id)).toBeGreaterThan(notice.body.resumedAfter);
      expect(client.events.map((e) => e.type)).toEqual(['stream.reset', 'quoteRequest.created']);
    }
  });

  it('a Last-Event-ID that is not an event id is 400 with its path', async () => {
    const response = await h.http('GET', '/api/public/stream', { headers: { 'last-event-id': 'abc' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Last-Event-ID must be an event id',
      code: 'VALIDATION_ERROR',
      details: [{ path: 'headers.last-event-id', message: 'must be a non-negative integer event id' }],
    });
    const query = await h.http('GET', '/api/public/stream?lastEventId=-1');
    expect(query.status).toBe(400);
    expect(query.body.code).toBe('VALIDATION_ERROR');
    expect(query.body.details[0].path).toBe('query.lastEventId');
  });

  it('sends the stream headers and a heartbeat comment', async () => {
    const abort = new AbortController();
    const response = await fetch(url, { headers: { 'x-api-key': await watcherKey() }, signal: abort.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('ratelimit-limit')).toBe('100');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': heartbeat\n\n')) {
      const { value } = await reader.read();
      text += decoder.decode(value);
    }
    abort.abort();
    expect(text.startsWith('retry: 2000\n: connected\n\n')).toBe(true);
  });

  it('the fourth concurrent anonymous stream from one IP is 429 STREAM_LIMIT; closing one frees a slot at once', async () => {
    const open = [await SseClient.open(url), await SseClient.open(url), await SseClient.open(url)];
    const refused = await h.http('GET', '/api/public/stream');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'at most 3 concurrent SSE streams per client',
      code: 'STREAM_LIMIT',
      details: [{ path: 'headers', message: 'this IP address already holds 3 open streams' }],
    });
    // An API key is its own class: it is not counted against the IP.
    const keyed = await SseClient.open(url, { 'x-api-key': await watcherKey() });
    keyed.close();

    open.pop()!.close();
    // The slot is freed when the server sees the connection close; no TTL to wait out.
    const abort = new AbortController();
    await vi.waitFor(
      async () => {
        const again = await fetch(url, { signal: abort.signal });
        if (again.status !== 200) await again.body?.cancel();
        expect(again.status).toBe(200);
      },
      { timeout: 2000, interval: 20 },
    );
    abort.abort();
    for (const client of open) client.close();
  });

  it('is documented in the OpenAPI document as text/event-stream', async () => {
    const doc = await h.http('GET', '/openapi.json');
    const stream = doc.body.paths['/api/public/stream'].get;
    expect(stream.summary).toBe('Live events (server-sent events)');
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
    expect(Object.keys(stream.responses)).toEqual(['200', '400', '429', '503']);
    expect(doc.body.paths['/ws'].get.summary).toBe('Live events (WebSocket)');
  });

  it('on shutdown each stream gets a final shutdown event', async () => {
    const client = await SseClient.open(url, { 'x-api-key': await watcherKey() });
    const restarted = h.restart();
    const shutdown = await client.waitFor((e) => e.type === 'shutdown');
    client.close();
    expect(shutdown.body).toEqual({ reason: 'the server is shutting down; reconnect' });
    await restarted;
    expect((await h.http('GET', '/readyz')).status).toBe(200);
  });
});
