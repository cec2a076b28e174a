import { pino } from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type FerryAppInstance } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config/config.ts';
import { createAccountService } from '../src/services/account-service.ts';
import { expectError, quoteRequestBody } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { signInAt } from './support/sign-in.ts';
import { SseClient, WsClient, wsUrl } from './support/stream-clients.ts';

/**
 * The findings of the security review, each against a real listening server: credentials out of logs and out of
 * the idempotency store, proxy trust, sign-in farming, streams that end with their credential, WebSocket message
 * limits, cache validators on public documents, and which account a wallet sign-in joins.
 *
 * Settings that differ from the harness's (small limits, a captured log, a trusted proxy) run on extra instances
 * of the API over the harness's database, chains and clock.
 */
describe('abuse resistance', () => {
  let h: Harness;
  const extras: FerryAppInstance[] = [];

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    for (const app of extras) await app.close();
    await h?.close();
  });

  /** Another API instance on the harness's database with some settings changed; returns its base URL. */
  async function instance(overrides: Partial<Config>, log = pino({ level: 'silent' })) {
    const app = await createApp({
      config: { ...h.config, port: 0, ...overrides },
      registry: h.registry,
      clock: h.clock,
      log,
    });
    extras.push(app);
    return { app, url: await app.listen() };
  }

  const wallet = () => privateKeyToAccount(generatePrivateKey());

  /** Resolves with the close, or with null when the socket is still open after `ms` (a behaviour bound). */
  function closedWithin(client: WsClient, ms = 1500) {
    return Promise.race([client.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms))]);
  }

  describe('M1/L2: no credential in a log line or a stored response', () => {
    it('a key or session token sent in ?token= is redacted in the request log', async () => {
      const lines: string[] = [];
      // Request lines are written at debug (the default level keeps an idle server quiet).
      const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
      const { url } = await instance({}, log);
      const mm = await h.createAccount('moneyMover', 'logged');
      const session = await signInAt(h, url, wallet());
      expect(session.status).toBe(200);
      const token = session.body.session.token as string;

      const byKey = await WsClient.connect(`${wsUrl(url)}?token=${mm.apiKey}`);
      const bySession = await WsClient.connect(`${wsUrl(url)}?token=${encodeURIComponent(token)}`);
      await byKey.close();
      await bySession.close();
      // Any other credential-looking parameter, even on a route that refuses it.
      const refused = await fetch(`${url}/api/public/orders?apiKey=${mm.apiKey}&page=1`);
      expect(refused.status).toBe(400);

      const logged = lines.join('');
      expect(logged).toContain('/ws?token=[redacted]');
      expect(logged).toContain('/api/public/orders?apiKey=[redacted]&page=1');
      expect(logged).not.toContain(mm.apiKey);
      expect(logged).not.toContain(token);
    });

    it('POST /auth/verify with an Idempotency-Key stores nothing, and a replay does not return a live token', async () => {
      const signer = wallet();
      const headers = { 'idempotency-key': 'sign-in-once' };
      const first = await signInAt(h, h.baseUrl, signer, headers);
      expect(first.status).toBe(200);
      const token = first.body.session.token as string;

      const stored = await h.app.database.db.selectFrom('idempotency_keys').selectAll().execute();
      expect(stored.filter((row) => row.key === 'sign-in-once')).toEqual([]);
      expect(JSON.stringify(stored)).not.toContain(token);

      // The very same request again runs again: its nonce is used up, so no session comes back.
      const replay = await h.http('POST', '/auth/verify', { body: first.request, headers });
      expectError(replay, 401, 'UNAUTHORIZED', 'body.message');
      expect(replay.headers.get('idempotent-replayed')).toBeNull();
      expect(JSON.stringify(replay.body)).not.toContain(token);
    });
  });

  describe('M2: TRUST_PROXY', () => {
    /** The test client plays the proxy: it forwards a client-written entry, then appends the real address. */
    async function throughProxy(url: string, spoofed: string, real: string) {
      const res = await fetch(`${url}/api/public/chains`, {
        headers: { 'x-forwarded-for': `${spoofed}, ${real}` },
      });
      await res.body?.cancel();
      return res.status;
    }

    for (const setting of ['1', '127.0.0.1']) {
      it(`TRUST_PROXY=${setting}: a spoofed leftmost X-Forwarded-For still hits the per-IP limit`, async () => {
        const { trustProxy } = loadConfig({ TRUST_PROXY: setting });
        // Behind a proxy /metrics needs a token (docs/metrics.md): this instance gets one.
        const { url } = await instance({
          trustProxy,
          metricsToken: 'abuse-test-metrics-token',
          rateLimits: { apiKey: 100, session: 60, ip: 5 },
        });
        const statuses = [];
        for (let i = 0; i < 8; i++) statuses.push(await throughProxy(url, `10.9.8.${i}`, '198.51.100.7'));
        expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
        // The address the trusted proxy saw is the client: another one has its own budget.
        expect(await throughProxy(url, '10.9.8.1', '198.51.100.8')).toBe(200);
      });
    }
  });

  describe('M3: sign-in farming', () => {
    it('40 fresh-wallet sign-ins from one IP: 10 succeed, the rest are 429 RATE_LIMITED', async () => {
      const { url, app } = await instance({
        signIn: { perIpPerMinute: 10, perAddressPerMinute: 10_000, sessionsPerAddress: 5 },
      });
      const wallets = Array.from({ length: 40 }, wallet);
      const results = [];
      for (const signer of wallets) results.push(await signInAt(h, url, signer));
      expect(results.map((r) => r.status)).toEqual([...Array(10).fill(200), ...Array(30).fill(429)]);
      const refused = results[10]!;
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('ratelimit-limit')).toBe('10');
      // Refused sign-ins made no account.
      const accounts = await app.database.db
        .selectFrom('accounts')
        .select('id')
        .where(
          'address',
          'in',
          wallets.map((w) => w.address),
        )
        .execute();
      expect(accounts).toHaveLength(10);
    });

    it('1,000 nonce requests leave a bounded table: used nonces go at once, unused ones at the sweep after 10 min', async () => {
      const { url, app } = await instance({ rateLimits: { apiKey: 100, session: 60, ip: 100_000 } });
      const count = async () =>
        Number(
          (
            await app.database.db
              .selectFrom('siwe_nonces')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      for (let batch = 0; batch < 20; batch++) {
        await Promise.all(
          Array.from({ length: 50 }, async () => {
            const res = await fetch(`${url}/auth/nonce`);
            expect(res.status).toBe(200);
            await res.json();
          }),
        );
      }
      expect(await count()).toBe(before + 1000);
      // A sign-in uses its nonce up: the row is gone at once.
      expect((await signInAt(h, url, wallet())).status).toBe(200);
      expect(await count()).toBe(before + 1000);

      h.clock.advance(10 * 60 + 1);
      await app.sweeper.sweep();
      expect(await count()).toBe(0);
      // Sign-in still works after the sweep.
      expect((await signInAt(h, url, wallet())).status).toBe(200);
    });

    it('expired sessions are deleted by the sweep; live ones stay', async () => {
      const { url, app } = await instance({ sessionTtlSeconds: 600 });
      const wallets = Array.from({ length: 3 }, wallet);
      for (const signer of wallets) expect((await signInAt(h, url, signer)).status).toBe(200);
      const rows = async (addresses: string[]) =>
        app.database.db.selectFrom('sessions').select('id').where('address', 'in', addresses).execute();
      const addresses = wallets.map((w) => w.address);
      await app.sweeper.sweep();
      expect(await rows(addresses)).toHaveLength(3);

      h.clock.advance(600 + 1);
      const late = wallet();
      expect((await signInAt(h, url, late)).status).toBe(200);
      await app.sweeper.sweep();
      expect(await rows(addresses)).toHaveLength(0);
      expect(await rows([late.address])).toHaveLength(1);
    });

    it('a sixth session of one address ends the first, and closes its WebSocket', async () => {
      const signer = wallet();
      const tokens: string[] = [];
      for (let i = 0; i < 5; i++) tokens.push((await signInAt(h, h.baseUrl, signer)).body.session.token);
      const socket = await WsClient.connect(`${wsUrl(h.baseUrl)}?token=${encodeURIComponent(tokens[0]!)}`);
      for (const token of tokens) {
        expect((await h.http('GET', '/api/v1/orders', { bearer: token })).status).toBe(200);
      }

      const sixth = await signInAt(h, h.baseUrl, signer);
      expect(sixth.status).toBe(200);
      expect(await closedWithin(socket)).toMatchObject({ code: 4001 });
      expectError(await h.http('GET', '/api/v1/orders', { bearer: tokens[0]! }), 401, 'UNAUTHORIZED');
      for (const token of [...tokens.slice(1), sixth.body.session.token]) {
        expect((await h.http('GET', '/api/v1/orders', { bearer: token })).status).toBe(200);
      }
    });
  });

  describe('L1: streams end with their credential', () => {
    it('logout closes the session WebSocket (4001) and ends its SSE stream with session.ended', async () => {
      const signer = wallet();
      const { token } = (await signInAt(h, h.baseUrl, signer)).body.session;
      const byQuery = await WsClient.connect(`${wsUrl(h.baseUrl)}?token=${encodeURIComponent(token)}`);
      const byHeader = await WsClient.connect(wsUrl(h.baseUrl), { authorization: `Bearer ${token}` });
      await byHeader.request({ op: 'subscribe', channels: ['account'] }, (f) => f.op === 'subscribed');
      const sse = await SseClient.open(`${h.baseUrl}/api/public/stream`, {
        authorization: `Bearer ${token}`,
      });
      const anonymous = await WsClient.connect(wsUrl(h.baseUrl));

      const logout = await h.http('POST', '/auth/logout', { bearer: token });
      expect(logout.status).toBe(200);
      expect(await closedWithin(byQuery)).toMatchObject({ code: 4001 });
      expect(await closedWithin(byHeader)).toMatchObject({ code: 4001 });
      const ended = await Promise.race([
        sse.waitFor((e) => e.type === 'session.ended'),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 1500)),
      ]);
      sse.close();
      expect(ended).toMatchObject({ type: 'session.ended', body: { reason: expect.any(String) } });
      // Streams without that credential stay.
      expect(await anonymous.request({ op: 'ping' }, (f) => f.op === 'pong')).toEqual({ op: 'pong' });
      await anonymous.close();
    });

    it('revoking an API key closes its WebSocket, in this process and from another (the CLI path)', async () => {
      const account = await h.app.accounts.createAccount({
        type: 'moneyMover',
        name: 'revoked',
        address: null,
      });
      const first = await h.app.accounts.createApiKey(account.id);
      const second = await h.app.accounts.createApiKey(account.id);
      const kept = await h.app.accounts.createApiKey(account.id);
      const viaServer = await WsClient.connect(wsUrl(h.baseUrl), { 'x-api-key': first.apiKey });
      const viaCli = await WsClient.connect(`${wsUrl(h.baseUrl)}?token=${second.apiKey}`);
      const other = await WsClient.connect(wsUrl(h.baseUrl), { 'x-api-key': kept.apiKey });

      await h.app.accounts.revokeApiKey(first.key.id);
      expect(await closedWithin(viaServer)).toMatchObject({ code: 4001 });

      // `ferry keys revoke` runs in its own process: an account service of its own, which tells no server.
      const cli = createAccountService({ database: h.app.database, clock: h.clock });
      await cli.revokeApiKey(second.key.id);
      expect(await closedWithin(viaCli)).toMatchObject({ code: 4001 });

      expect(await other.request({ op: 'ping' }, (f) => f.op === 'pong')).toEqual({ op: 'pong' });
      await other.close();
    });

    it('session expiry closes the session WebSocket', async () => {
      const { url } = await instance({ sessionTtlSeconds: 60 });
      const { token } = (await signInAt(h, url, wallet())).body.session;
      const socket = await WsClient.connect(wsUrl(url), { authorization: `Bearer ${token}` });
      expect(await socket.request({ op: 'ping' }, (f) => f.op === 'pong')).toEqual({ op: 'pong' });
      h.clock.advance(61);
      expect(await closedWithin(socket)).toMatchObject({ code: 4001 });
    });
  });

  describe('L6: WebSocket message limit', () => {
    it('a 3,000-frame burst gets one RATE_LIMITED error frame, then close 1008', async () => {
      const client = await WsClient.connect(wsUrl(h.baseUrl));
      for (let i = 0; i < 3000; i++) client.send({ op: 'ping' });
      const closed = await client.closed;
      expect(closed.code).toBe(1008);
      const errors = client.messages.filter((f) => f.op === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'RATE_LIMITED', details: [{ path: 'message' }] });
      const pongs = client.messages.filter((f) => f.op === 'pong').length;
      expect(pongs).toBeGreaterThanOrEqual(50);
      expect(pongs).toBeLessThan(100);
    });

    it('a client sending 10 messages a second is never limited', async () => {
      const client = await WsClient.connect(wsUrl(h.baseUrl));
      for (let i = 0; i < 30; i++) {
        await client.request({ op: 'ping' }, (f) => f.op === 'pong' || f.op === 'error');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(client.messages).toEqual(Array(30).fill({ op: 'pong' }));
      expect(client.socket.readyState).toBe(client.socket.OPEN);
      await client.close();
    });
  });

  describe('L7: public documents carry validators and count in the per-IP limit', () => {
    it('/openapi.json, /docs, its assets, / and the explorer files answer 304 to a matching If-None-Match', async () => {
      for (const path of ['/openapi.json', '/docs', '/docs/static/swagger-ui.css', '/', '/explorer/app.js']) {
        const first = await fetch(`${h.baseUrl}${path}`);
        expect(first.status, path).toBe(200);
        await first.arrayBuffer();
        const etag = first.headers.get('etag');
        expect(etag, path).toMatch(/^(W\/)?"[^"]+"$/);
        expect(first.headers.get('cache-control'), path).toMatch(/no-cache|max-age=0/);
        expect(first.headers.get('ratelimit-limit'), path).not.toBeNull();
        // As a browser revalidates (fetch would add Cache-Control: no-cache, which asks for a full answer).
        const again = await fetch(`${h.baseUrl}${path}`, {
          headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' },
        });
        expect(again.status, path).toBe(304);
        expect(await again.text(), path).toBe('');
        const changed = await fetch(`${h.baseUrl}${path}`, { headers: { 'if-none-match': '"stale"' } });
        expect(changed.status, path).toBe(200);
        await changed.arrayBuffer();
      }
    });

    it('they are refused past the per-IP limit like any other request', async () => {
      const { url } = await instance({ rateLimits: { apiKey: 100, session: 60, ip: 4 } });
      const statuses = [];
      for (const path of ['/openapi.json', '/docs', '/', '/explorer/app.js', '/openapi.json', '/docs', '/']) {
        const res = await fetch(`${url}${path}`);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429]);
    });
  });

  describe('L5: which account a wallet sign-in joins', () => {
    it("an operator's money-mover account with the wallet's address is not joined: the wallet gets its own", async () => {
      const signer = wallet();
      const operator = await h.app.accounts.createAccount({
        type: 'moneyMover',
        name: 'integrator',
        address: signer.address,
      });
      const { apiKey } = await h.app.accounts.createApiKey(operator.id);
      const theirs = await h.http('POST', '/api/v1/quote-requests', {
        apiKey,
        body: quoteRequestBody(h, { offerer: h.otherWallet.address }),
      });
      expect(theirs.status).toBe(201);

      const session = await signInAt(h, h.baseUrl, signer);
      expect(session.status).toBe(200);
      expect(session.body.session.accountId).not.toBe(operator.id);
      const seen = await h.http('GET', '/api/v1/quote-requests?timeWindow=86400', {
        bearer: session.body.session.token,
      });
      expect(seen.status).toBe(200);
      expect(seen.body.data).toEqual([]);
      expectError(
        await h.http('GET', `/api/v1/quote-requests/${theirs.body.data.quoteId}`, {
          bearer: session.body.session.token,
        }),
        404,
        'QUOTE_REQUEST_NOT_FOUND',
      );
      // Signing in again reaches the same (wallet's own) account.
      expect((await signInAt(h, h.baseUrl, signer)).body.session.accountId).toBe(
        session.body.session.accountId,
      );
    });

    it('an operator account opted in with allowWalletSignIn is the one a sign-in joins', async () => {
      const signer = wallet();
      const operator = await h.app.accounts.createAccount({
        type: 'moneyMover',
        name: 'opted in',
        address: signer.address,
        allowWalletSignIn: true,
      });
      const session = await signInAt(h, h.baseUrl, signer);
      expect(session.status).toBe(200);
      expect(session.body.session.accountId).toBe(operator.id);
    });
  });
});
