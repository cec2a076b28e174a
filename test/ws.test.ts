import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { UpgradeRefused, WsClient, wsUrl } from './support/stream-clients.ts';
import { executeSwap } from './support/swap-steps.ts';

/** GET /ws with the real `ws` client: protocol, channels, authentication, limits, shutdown. */
describe('WebSocket', () => {
  let h: Harness;
  let url: string;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness();
    url = wsUrl(h.baseUrl);
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp one');
  });
  afterAll(async () => {
    await h?.close();
  });

  async function subscribe(client: WsClient, channels: string[]) {
    return client.request({ op: 'subscribe', channels }, (f) => f.op === 'subscribed' || f.op === 'error');
  }

  async function refusal(connecting: Promise<WsClient>): Promise<UpgradeRefused> {
    const error = await connecting.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UpgradeRefused);
    return error as UpgradeRefused;
  }

  it('answers ping, subscribes and unsubscribes, and sends events of its channels only', async () => {
    const client = await WsClient.connect(url);
    const sentinel = await WsClient.connect(url, { 'x-api-key': lp.apiKey });
    expect(await client.request({ op: 'ping' }, (f) => f.op === 'pong')).toEqual({ op: 'pong' });
    expect(await subscribe(client, ['public'])).toEqual({ op: 'subscribed', channels: ['public'] });
    expect(await subscribe(sentinel, ['public'])).toEqual({ op: 'subscribed', channels: ['public'] });

    const first = await createQuoteRequest(h, mm.apiKey);
    const frame = await client.waitFor((f) => f.op === 'event');
    expect(frame).toMatchObject({
      op: 'event',
      channel: 'public',
      event: { type: 'quoteRequest.created', data: { id: first, status: 'open', inputAmount: '1000000' } },
    });
    expect(Object.keys(frame.event)).toEqual(['id', 'type', 'occurredAt', 'data']);
    expect(JSON.stringify(frame)).not.toContain(mm.id);

    expect(
      await client.request({ op: 'unsubscribe', channels: ['public'] }, (f) => f.op === 'unsubscribed'),
    ).toEqual({
      op: 'unsubscribed',
      channels: [],
    });
    const second = await createQuoteRequest(h, mm.apiKey);
    await sentinel.waitFor((f) => f.op === 'event' && f.event.data.id === second);
    // Everything the server sent the unsubscribed client before answering this ping: no second event.
    const frames = await client.framesUntilPong();
    expect(frames.filter((f) => f.op === 'event').map((f) => f.event.data.id)).toEqual([first]);
    await client.close();
    await sentinel.close();
  });

  it('a liquidity provider on quoteRequests receives each new open request as it is created, and nothing else', async () => {
    const client = await WsClient.connect(url, { 'x-api-key': lp.apiKey });
    expect(await subscribe(client, ['quoteRequests'])).toEqual({
      op: 'subscribed',
      channels: ['quoteRequests'],
    });
    const requestId = await createQuoteRequest(h, mm.apiKey);
    const frame = await client.waitFor((f) => f.op === 'event');
    expect(frame.channel).toBe('quoteRequests');
    expect(frame.event.type).toBe('quoteRequest.created');
    expect(frame.event.data).toMatchObject({ id: requestId, status: 'open', inputChain: h.chainA });

    // The LP quotes on it: a quote event is not a quote request, so the channel stays quiet.
    const quoted = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '990000' },
    });
    expect(quoted.status).toBe(201);
    const watcher = await WsClient.connect(url);
    await subscribe(watcher, ['public']);
    const next = await createQuoteRequest(h, mm.apiKey);
    await watcher.waitFor((f) => f.op === 'event' && f.event.data.id === next);
    const frames = (await client.framesUntilPong()).filter((f) => f.op === 'event');
    expect(frames.map((f) => [f.channel, f.event.type, f.event.data.id])).toEqual([
      ['quoteRequests', 'quoteRequest.created', requestId],
      ['quoteRequests', 'quoteRequest.created', next],
    ]);
    await client.close();
    await watcher.close();
  });

  it("the account channel carries the caller's own order events and not another account's", async () => {
    const other = await h.createAccount('moneyMover', 'other mover');
    const mine = await WsClient.connect(`${url}?token=${mm.apiKey}`);
    const theirs = await WsClient.connect(url, { authorization: `Bearer ${other.apiKey}` }).catch((e) => e);
    // A Bearer value is a session token: an API key there is refused before the upgrade.
    expect(theirs).toBeInstanceOf(UpgradeRefused);
    const others = await WsClient.connect(url, { 'x-api-key': other.apiKey });
    expect(await subscribe(mine, ['account'])).toEqual({ op: 'subscribed', channels: ['account'] });
    expect(await subscribe(others, ['account', 'public'])).toEqual({
      op: 'subscribed',
      channels: ['account', 'public'],
    });

    const swap = await executeSwap(h, { mm, lp }, { input: 1_000_000n, output: 990_000n });
    const created = await mine.waitFor((f) => f.op === 'event' && f.event.type === 'order.created');
    expect(created.channel).toBe('account');
    expect(created.event.data).toMatchObject({ id: swap.orderId, status: 'created', source: 'order' });
    expect(mine.messages.filter((f) => f.op === 'event').map((f) => f.event.type)).toEqual([
      'quoteRequest.created',
      'quote.created',
      'quote.accepted',
      'order.created',
    ]);
    // The other mover saw the same events on public, none on account.
    await others.waitFor((f) => f.op === 'event' && f.event.type === 'order.created');
    const frames = (await others.framesUntilPong()).filter((f) => f.op === 'event');
    expect(new Set(frames.map((f) => f.channel))).toEqual(new Set(['public']));
    expect(frames.map((f) => f.event.type)).toEqual([
      'quoteRequest.created',
      'quote.created',
      'quote.accepted',
      'order.created',
    ]);
    await mine.close();
    await others.close();
  });

  it('a bad message gets an error frame and the connection stays open', async () => {
    const client = await WsClient.connect(url);
    const cases: Array<[unknown, string, string]> = [
      ['{not json', 'message', 'is not valid JSON'],
      ['[1,2]', 'message', 'must be a JSON object'],
      [{ op: 'shout' }, 'message.op', 'must be one of subscribe, unsubscribe, ping'],
      [{ op: 'subscribe' }, 'message.channels', 'must be an array of 1 to 3 channel names'],
      [{ op: 'subscribe', channels: [] }, 'message.channels', 'must be an array of 1 to 3 channel names'],
      [
        { op: 'subscribe', channels: ['public', 'secrets'] },
        'message.channels.1',
        'must be one of public, quoteRequests, account',
      ],
      [{ op: 'ping', channels: ['public'] }, 'message.channels', 'is not a known field'],
    ];
    for (const [message, path, text] of cases) {
      const error = await client.request(message, (f) => f.op === 'error');
      expect(error).toEqual({
        op: 'error',
        code: 'VALIDATION_ERROR',
        error: `the message is invalid: ${path} ${text}`,
        details: [{ path, message: text }],
      });
    }
    // An anonymous client may not subscribe to private channels; a money mover not to quoteRequests.
    const anonymous = await client.request(
      { op: 'subscribe', channels: ['public', 'account'] },
      (f) => f.op === 'error',
    );
    expect(anonymous).toEqual({
      op: 'error',
      code: 'UNAUTHORIZED',
      error: 'the account channel needs an API key or a session',
      details: [{ path: 'message.channels.1', message: 'requires authentication' }],
    });
    const mover = await WsClient.connect(url, { 'x-api-key': mm.apiKey });
    const forbidden = await mover.request(
      { op: 'subscribe', channels: ['quoteRequests'] },
      (f) => f.op === 'error',
    );
    expect(forbidden.code).toBe('FORBIDDEN');
    expect(forbidden.details).toEqual([
      { path: 'message.channels.0', message: 'account type moneyMover may not subscribe' },
    ]);
    // A refused subscribe changes nothing: still subscribed to nothing, and still open.
    expect(await subscribe(client, ['public'])).toEqual({ op: 'subscribed', channels: ['public'] });
    expect(await client.request({ op: 'ping' }, (f) => f.op === 'pong')).toEqual({ op: 'pong' });
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    await client.close();
    await mover.close();
  });

  it('refuses bad credentials before the upgrade with 401, and a plain GET with 400', async () => {
    const badKey = await refusal(WsClient.connect(url, { 'x-api-key': 'fk_nope' }));
    expect(badKey.status).toBe(401);
    expect(badKey.body).toEqual({
      error: 'the API key is unknown or revoked',
      code: 'UNAUTHORIZED',
      details: [{ path: 'headers.x-api-key', message: 'the API key is unknown or revoked' }],
    });
    const badToken = await refusal(WsClient.connect(`${url}?token=nope`));
    expect(badToken.status).toBe(401);
    expect(badToken.body.details).toEqual([
      { path: 'query.token', message: 'is not a valid API key or session token' },
    ]);
    const badBearer = await refusal(WsClient.connect(url, { authorization: 'Bearer nope' }));
    expect(badBearer.status).toBe(401);
    expect(badBearer.body.details[0].path).toBe('headers.authorization');

    const plain = await h.http('GET', '/ws');
    expect(plain.status).toBe(400);
    expect(plain.body.details).toEqual([{ path: 'headers.upgrade', message: 'must be websocket' }]);
  });

  it('the fourth concurrent WebSocket of one API key is refused with 429 STREAM_LIMIT; closing one frees it', async () => {
    const key = (await h.createAccount('liquidityProvider', 'busy lp')).apiKey;
    const open = [];
    for (let i = 0; i < 3; i++) open.push(await WsClient.connect(url, { 'x-api-key': key }));
    const refused = await refusal(WsClient.connect(`${url}?token=${key}`));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'at most 3 concurrent WebSocket streams per client',
      code: 'STREAM_LIMIT',
      details: [{ path: 'headers', message: 'this account already holds 3 open streams' }],
    });
    // SSE streams are counted separately from WebSockets.
    const sse = await fetch(`${h.baseUrl}/api/public/stream`, { headers: { 'x-api-key': key } });
    expect(sse.status).toBe(200);
    await sse.body!.cancel();

    await open.pop()!.close();
    const again = await vi.waitFor(() => WsClient.connect(url, { 'x-api-key': key }), {
      timeout: 2000,
      interval: 20,
    });
    expect(await again.request({ op: 'ping' }, (f) => f.op === 'pong')).toEqual({ op: 'pong' });
    for (const client of [...open, again]) await client.close();
  });

  it('on shutdown the server closes every WebSocket with 1001', async () => {
    const client = await WsClient.connect(url, { 'x-api-key': lp.apiKey });
    await subscribe(client, ['public']);
    await h.restart();
    expect(await client.closed).toEqual({ code: 1001, reason: 'server shutting down' });
  });
});
