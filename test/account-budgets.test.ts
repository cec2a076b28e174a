import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/config/config.ts';
import { type Harness, type HttpResponse, startHarness } from './support/harness.ts';
import { signInAt } from './support/sign-in.ts';
import { SseClient, UpgradeRefused, WsClient, wsUrl } from './support/stream-clients.ts';
import { REDIS_URL } from './support/two-instances.ts';

/**
 * Budgets count per account (docs/api-conventions.md#rate-limits): every session of one address, and every API key
 * of its account, spend one request counter and one set of stream slots, so signing in five times buys nothing.
 * The same suite runs with counters in memory and in Redis.
 */
const wallet = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey());
const SESSION_LIMIT = 60;
const SIGN_INS_PER_ADDRESS = 5;

function expectRateLimited(res: HttpResponse, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({
    code: 'RATE_LIMITED',
    details: [
      {
        path: 'headers',
        message: `limit ${limit} per minute for this account (all its API keys and sessions together)`,
      },
    ],
  });
  expect(res.body.error).toMatch(
    new RegExp(`^rate limit of ${limit} requests per minute exceeded; retry in \\d+ s$`),
  );
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
}

const backends: [string, Partial<Config>][] = [
  ['in memory', {}],
  ['in Redis', { redisUrl: REDIS_URL, redisKeyPrefix: `ferry-test-${randomBytes(6).toString('hex')}:` }],
];

describe.each(backends)('budgets per account, counted %s', (_name, overrides) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      ...overrides,
      // One proxy hop is trusted, so a sign-in test can come from many client IPs (behind a proxy /metrics needs
      // a token).
      trustProxy: 1,
      metricsToken: 'account-budgets-metrics-token',
      signIn: { perIpPerMinute: 10_000, perAddressPerMinute: SIGN_INS_PER_ADDRESS, sessionsPerAddress: 5 },
    });
  });
  afterAll(async () => {
    await h?.close();
    if (overrides.redisKeyPrefix) {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${overrides.redisKeyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });

  /** `count` sessions of one wallet, signed in from this test's one IP. Spends `count` of its sign-ins. */
  async function sessionsOf(signer: PrivateKeyAccount, count: number): Promise<string[]> {
    const tokens = [];
    for (let i = 0; i < count; i++) {
      const signedIn = await signInAt(h, h.baseUrl, signer);
      expect(signedIn.status, `sign-in ${i + 1}`).toBe(200);
      tokens.push(signedIn.body.session.token as string);
    }
    return tokens;
  }

  it('five sessions of one address spend one budget of 60 requests; the 61st is 429 from any of them', async () => {
    const signer = wallet();
    const tokens = await sessionsOf(signer, 5);
    expect(new Set(tokens).size).toBe(5);
    for (let i = 0; i < SESSION_LIMIT; i++) {
      const res = await h.http('GET', '/api/v1/orders', { bearer: tokens[i % tokens.length]! });
      expect(res.status, `request ${i + 1}`).toBe(200);
      expect(res.headers.get('ratelimit-remaining'), `request ${i + 1}`).toBe(String(SESSION_LIMIT - 1 - i));
    }
    for (const token of tokens)
      expectRateLimited(await h.http('GET', '/api/v1/orders', { bearer: token }), 60);

    // Another address has a budget of its own.
    const [other] = await sessionsOf(wallet(), 1);
    const fresh = await h.http('GET', '/api/v1/orders', { bearer: other! });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('ratelimit-remaining')).toBe(String(SESSION_LIMIT - 1));
  });

  it("an account's API key and its sessions share one counter, each refused past its own limit", async () => {
    const signer = wallet();
    const account = await h.app.accounts.createAccount({
      type: 'moneyMover',
      name: 'key and sessions',
      address: signer.address,
      allowWalletSignIn: true,
    });
    const { apiKey } = await h.app.accounts.createApiKey(account.id);
    const { apiKey: secondKey } = await h.app.accounts.createApiKey(account.id);
    const [session] = await sessionsOf(signer, 1);
    for (let i = 0; i < 30; i++) expect((await h.http('GET', '/api/v1/orders', { apiKey })).status).toBe(200);
    for (let i = 0; i < 30; i++)
      expect((await h.http('GET', '/api/v1/orders', { bearer: session! })).status).toBe(200);
    // 60 spent by the account: its session is done, its keys have 40 left between them.
    expectRateLimited(await h.http('GET', '/api/v1/orders', { bearer: session! }), 60);
    const keyed = await h.http('GET', '/api/v1/orders', { apiKey: secondKey });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('ratelimit-remaining')).toBe(String(100 - 62));
  });

  it('five sessions of one address (and its API key) hold at most 3 SSE streams and 3 WebSockets between them', async () => {
    const signer = wallet();
    const account = await h.app.accounts.createAccount({
      type: 'moneyMover',
      name: 'streamer',
      address: signer.address,
      allowWalletSignIn: true,
    });
    const { apiKey } = await h.app.accounts.createApiKey(account.id);
    const tokens = await sessionsOf(signer, 5);
    const streamUrl = `${h.baseUrl}/api/public/stream`;
    const open = [];
    for (const token of tokens.slice(0, 3))
      open.push(await SseClient.open(streamUrl, { authorization: `Bearer ${token}` }));
    // The other two sessions, and the account's API key, get no fourth stream.
    const fullStreams = {
      error: 'at most 3 concurrent SSE streams per client',
      code: 'STREAM_LIMIT',
      details: [{ path: 'headers', message: 'this account already holds 3 open streams' }],
    };
    for (const credential of [{ bearer: tokens[3]! }, { bearer: tokens[4]! }, { apiKey }]) {
      const refused = await h.http('GET', '/api/public/stream', credential);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(fullStreams);
    }
    const sockets = [];
    for (const token of tokens.slice(2, 5))
      sockets.push(await WsClient.connect(`${wsUrl(h.baseUrl)}?token=${token}`));
    for (const connect of [
      () => WsClient.connect(`${wsUrl(h.baseUrl)}?token=${tokens[0]}`),
      () => WsClient.connect(wsUrl(h.baseUrl), { 'x-api-key': apiKey }),
    ]) {
      const refusedWs = await connect().catch((e: unknown) => e);
      expect(refusedWs).toBeInstanceOf(UpgradeRefused);
      expect((refusedWs as UpgradeRefused).status).toBe(429);
      expect((refusedWs as UpgradeRefused).body).toEqual({
        ...fullStreams,
        error: 'at most 3 concurrent WebSocket streams per client',
      });
    }

    // Another address streams on its own slots.
    const [otherToken] = await sessionsOf(wallet(), 1);
    const theirs = await SseClient.open(streamUrl, { authorization: `Bearer ${otherToken}` });
    const theirSocket = await WsClient.connect(`${wsUrl(h.baseUrl)}?token=${otherToken}`);

    for (const client of [...open, theirs]) client.close();
    await Promise.all([...sockets, theirSocket].map((socket) => socket.close()));
  });

  it('sign-ins count per address from any IP, once the signature proves it; a forged one spends nothing', async () => {
    const signer = wallet();
    // Sign-ins naming this address but signed by another key are refused before the limit counts them.
    for (let i = 0; i < SIGN_INS_PER_ADDRESS + 1; i++) {
      const forged = await signInAt(h, h.baseUrl, { ...wallet(), address: signer.address });
      expect(forged.status).toBe(401);
      expect(forged.body.details).toEqual([{ path: 'body.signature', message: expect.any(String) }]);
    }

    const statuses = [];
    // Each from another client IP: the count follows the address.
    for (let i = 0; i < SIGN_INS_PER_ADDRESS + 2; i++)
      statuses.push(await signInAt(h, h.baseUrl, signer, { 'x-forwarded-for': `198.51.100.${i + 1}` }));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = statuses[SIGN_INS_PER_ADDRESS]!;
    expect(refused.body).toMatchObject({
      code: 'RATE_LIMITED',
      error: expect.stringMatching(/^at most 5 sign-ins per minute of one wallet address; retry in \d+ s$/),
      details: [
        { path: 'body.address', message: 'limit 5 sign-ins per minute for this wallet address, from any IP' },
      ],
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
    // The refused sign-ins opened no session.
    const sessions = await h.app.database.db
      .selectFrom('sessions')
      .select('id')
      .where('address', '=', signer.address)
      .execute();
    expect(sessions).toHaveLength(SIGN_INS_PER_ADDRESS);
    // Another address, from the same IP, is unaffected.
    expect((await signInAt(h, h.baseUrl, wallet())).status).toBe(200);
  });
});
