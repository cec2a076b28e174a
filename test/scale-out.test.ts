import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { quoteRequestBody } from './support/fixtures.ts';
import type { Harness } from './support/harness.ts';
import { signInAt } from './support/sign-in.ts';
import { SseClient, UpgradeRefused, WsClient, wsUrl } from './support/stream-clients.ts';
import { startTwoInstances, type TwoInstances } from './support/two-instances.ts';

/**
 * Two API instances on one PostgreSQL database and the local Redis behave as one service. Polling of the event
 * log is slowed to a minute here, so an event reaching instance B quickly proves the Redis notice works.
 */
describe.skipIf(!process.env.FERRY_TEST_PG)('several instances as one (PostgreSQL + Redis)', () => {
  let two: TwoInstances;
  let h: Harness;
  let urlA: string;
  let urlB: string;

  beforeAll(async () => {
    two = await startTwoInstances();
    ({ h, urlA, urlB } = two);
  });
  afterAll(async () => {
    await two?.close();
  });

  it('an event caused through instance A reaches SSE and WebSocket clients of instance B', async () => {
    expect(urlB).not.toBe(urlA);
    const watcher = await h.createAccount('moneyMover', 'watcher');
    const sse = await SseClient.open(`${urlB}/api/public/stream`, { 'x-api-key': watcher.apiKey });
    const lp = await h.createAccount('liquidityProvider');
    const ws = await WsClient.connect(wsUrl(urlB), { 'x-api-key': lp.apiKey });
    await ws.request(
      { op: 'subscribe', channels: ['quoteRequests', 'public'] },
      (f) => f.op === 'subscribed',
    );

    const mm = await h.createAccount('moneyMover');
    const created = await fetch(`${urlA}/api/v1/quote-requests`, {
      method: 'POST',
      headers: { 'x-api-key': mm.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(quoteRequestBody(h)),
    });
    expect(created.status).toBe(201);
    const requestId = ((await created.json()) as any).data.quoteId;

    const viaSse = await sse.waitFor((e) => e.type === 'quoteRequest.created');
    const viaWs = await ws.waitFor((f) => f.op === 'event' && f.channel === 'quoteRequests');
    const viaWsPublic = await ws.waitFor((f) => f.op === 'event' && f.channel === 'public');
    expect(viaSse.body.data.id).toBe(requestId);
    expect(viaWs.event).toEqual(viaSse.body);
    expect(viaWsPublic.event).toEqual(viaSse.body);
    sse.close();
    await ws.close();
  });

  it('the 100-per-minute limit of one API key holds across both instances together', async () => {
    const { apiKey } = await h.createAccount('moneyMover', 'busy');
    const get = (base: string) =>
      fetch(`${base}/api/v1/orders`, { headers: { 'x-api-key': apiKey } }).then(async (r) => {
        await r.body?.cancel();
        return { status: r.status, remaining: r.headers.get('ratelimit-remaining') };
      });
    const results = [];
    for (let i = 0; i < 60; i++) results.push(await get(urlA));
    for (let i = 0; i < 41; i++) results.push(await get(urlB));
    expect(results.filter((r) => r.status === 429)).toHaveLength(1);
    expect(results.at(-1)!.status).toBe(429);
    expect(results.slice(0, 100).every((r) => r.status === 200)).toBe(true);
    // B's first answer already counts A's 60 requests.
    expect(results[60]!.remaining).toBe('39');
  });

  it('the stream limit holds across both instances', async () => {
    const { apiKey } = await h.createAccount('moneyMover', 'streamer');
    const headers = { 'x-api-key': apiKey };
    const open = [
      await SseClient.open(`${urlA}/api/public/stream`, headers),
      await SseClient.open(`${urlA}/api/public/stream`, headers),
      await SseClient.open(`${urlB}/api/public/stream`, headers),
    ];
    for (const base of [urlA, urlB]) {
      const refused = await fetch(`${base}/api/public/stream`, { headers });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as any).code).toBe('STREAM_LIMIT');
    }
    // WebSockets have their own three slots, shared across the instances too.
    const sockets = [
      await WsClient.connect(wsUrl(urlB), headers),
      await WsClient.connect(wsUrl(urlA), headers),
      await WsClient.connect(wsUrl(urlB), headers),
    ];
    const refusedWs = await WsClient.connect(wsUrl(urlA), headers).catch((e: unknown) => e);
    expect(refusedWs).toBeInstanceOf(UpgradeRefused);
    expect((refusedWs as UpgradeRefused).body.code).toBe('STREAM_LIMIT');

    // A stream closed on A frees its slot for B at once.
    open.shift()!.close();
    const abort = new AbortController();
    await vi.waitFor(
      async () => {
        const again = await fetch(`${urlB}/api/public/stream`, { headers, signal: abort.signal });
        if (again.status !== 200) await again.body?.cancel();
        expect(again.status).toBe(200);
      },
      { timeout: 2000, interval: 20 },
    );
    abort.abort();
    for (const client of open) client.close();
    for (const socket of sockets) await socket.close();
  });
  /** Five sessions of one fresh wallet, signed in alternately on A and B. */
  async function fiveSessions(): Promise<string[]> {
    const signer = privateKeyToAccount(generatePrivateKey());
    const tokens = [];
    for (let i = 0; i < 5; i++) {
      const signedIn = await signInAt(h, i % 2 === 0 ? urlA : urlB, signer);
      expect(signedIn.status).toBe(200);
      tokens.push(signedIn.body.session.token as string);
    }
    return tokens;
  }

  it('five sessions of one address spend one budget of 60 across both instances; the 61st is 429 on either', async () => {
    const tokens = await fiveSessions();
    const get = (base: string, token: string) =>
      fetch(`${base}/api/v1/orders`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
        status: r.status,
        remaining: r.headers.get('ratelimit-remaining'),
        retryAfter: r.headers.get('retry-after'),
        body: (await r.json()) as any,
      }));
    const results = [];
    for (let i = 0; i < 60; i++) results.push(await get(i < 30 ? urlA : urlB, tokens[i % 5]!));
    expect(results.map((r) => r.status)).toEqual(Array(60).fill(200));
    expect(results.map((r) => r.remaining)).toEqual(Array.from({ length: 60 }, (_, i) => String(59 - i)));
    for (const [base, token] of [
      [urlA, tokens[0]!],
      [urlB, tokens[4]!],
    ] as const) {
      const refused = await get(base, token);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(refused.body.details).toEqual([
        {
          path: 'headers',
          message: 'limit 60 per minute for this account (all its API keys and sessions together)',
        },
      ]);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // Another address, on either instance, has its own budget.
    const [other] = await fiveSessions();
    expect((await get(urlB, other!)).remaining).toBe('59');
  });

  it('five sessions of one address hold 3 streams between them across both instances', async () => {
    const tokens = await fiveSessions();
    const auth = (i: number) => ({ authorization: `Bearer ${tokens[i]}` });
    const open = [
      await SseClient.open(`${urlA}/api/public/stream`, auth(0)),
      await SseClient.open(`${urlB}/api/public/stream`, auth(1)),
      await SseClient.open(`${urlA}/api/public/stream`, auth(2)),
    ];
    for (const [base, i] of [
      [urlB, 3],
      [urlA, 4],
    ] as const) {
      const refused = await fetch(`${base}/api/public/stream`, { headers: auth(i) });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as any).details).toEqual([
        { path: 'headers', message: 'this account already holds 3 open streams' },
      ]);
    }
    const sockets = [
      await WsClient.connect(wsUrl(urlB), auth(4)),
      await WsClient.connect(wsUrl(urlA), auth(3)),
      await WsClient.connect(wsUrl(urlB), auth(2)),
    ];
    const refusedWs = await WsClient.connect(wsUrl(urlA), auth(0)).catch((e: unknown) => e);
    expect(refusedWs).toBeInstanceOf(UpgradeRefused);
    expect((refusedWs as UpgradeRefused).body.code).toBe('STREAM_LIMIT');
    for (const client of open) client.close();
    for (const socket of sockets) await socket.close();
  });
});
