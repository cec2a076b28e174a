import net from 'node:net';
import { createWalletClient, http, recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FerryApiError as FerryApiErrorClass } from '../sdk/src/ferry-error.ts';
import {
  createFerryClient,
  type FerryApiError,
  type FerryClient,
  type FerryEvent,
  isFerryApiError,
  signInWithEthereum,
  signQuote,
  subscribeEvents,
  subscribeWs,
  type WsChannel,
  type WsStatus,
} from '../sdk/src/index.ts';
import { ANVIL_KEYS } from '../src/chains/devnet.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { type BotLog, createLpBot } from '../src/lp/lp-bot.ts';
import { type Harness, startHarness } from './support/harness.ts';

const waitFor = <T>(probe: () => T | Promise<T>) => vi.waitFor(probe, { timeout: 15_000, interval: 20 });

/** Awaits a promise that must reject with a FerryApiError and returns the error. */
async function apiError(promise: Promise<unknown>): Promise<FerryApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FerryApiErrorClass);
  expect(error).toBeInstanceOf(Error);
  return error as FerryApiError;
}

/**
 * A TCP proxy in front of the server, to break connections on purpose: `drop()` cuts every open connection,
 * `refuse` turns new ones away, `stall()` stops forwarding bytes (a dead peer that TCP has not noticed).
 */
async function startProxy(targetUrl: string) {
  const target = new URL(targetUrl);
  const pairs = new Set<[net.Socket, net.Socket]>();
  let refuse = false;
  let stalled = false;
  const server = net.createServer((client) => {
    if (refuse) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    if (stalled) for (const s of pair) s.pause();
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return pairs.size;
    },
    set refuse(value: boolean) {
      refuse = value;
    },
    drop() {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    stall(on: boolean) {
      stalled = on;
      for (const pair of pairs) for (const s of pair) on ? s.pause() : s.resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

describe('typed client SDK (@ferry/client) against a running Ferry', () => {
  let h: Harness;
  let mmAccount: { id: string; apiKey: string };
  let lpAccount: { id: string; apiKey: string };
  let mm: FerryClient;
  let lp: FerryClient;
  let anon: FerryClient;
  let chainId: number;

  const requestInput = (inputAmount = '1000000') => ({
    recipient: h.otherWallet.address,
    offerer: h.offerer.address,
    inputToken: h.usdcA,
    outputToken: h.usdcB,
    inputAmount,
    inputChain: h.chainA,
    outputChain: h.chainB,
  });

  beforeAll(async () => {
    h = await startHarness({
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
      streams: {
        maxPerClient: 10,
        heartbeatMs: 15_000,
        replayMaxEvents: 10_000,
        maxBufferBytes: 1 << 20,
        pollMs: 500,
        replayMaxPending: 10_000,
      },
    });
    mmAccount = await h.createAccount('moneyMover', 'sdk money mover');
    lpAccount = await h.createAccount(
      'liquidityProvider',
      'sdk lp',
      privateKeyToAccount(ANVIL_KEYS[4]!).address,
    );
    mm = createFerryClient({ baseUrl: h.baseUrl, apiKey: mmAccount.apiKey });
    lp = createFerryClient({ baseUrl: h.baseUrl, apiKey: lpAccount.apiKey });
    anon = createFerryClient({ baseUrl: `${h.baseUrl}/` });
    chainId = h.registry.chain(h.chainA)!.chainId;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs a whole swap through every endpoint method, signing the typed data with signQuote', async () => {
    expect(await anon.health()).toEqual({ status: 'ok' });
    const chains = await anon.public.chains();
    expect(chains.status).toBe('success');
    expect(chains.data.chains.map((c) => c.name)).toEqual([h.chainA, h.chainB]);
    expect(chains.data.chains[0]!.tokens.find((t) => t.symbol === 'USDC')?.address).toBe(h.usdcA);

    const created = await mm.quoteRequests.create(requestInput('2500000'));
    expect(created.quoteId).toBe(created.quoteRequestId);
    expect(created.quoteRequest).toMatchObject({
      id: created.quoteId,
      status: 'open',
      inputAmount: '2500000',
    });
    expect(await mm.quoteRequests.get(created.quoteId)).toEqual(created);
    const page = await mm.quoteRequests.list({ pageSize: 100 });
    expect(Object.keys(page).sort()).toEqual(['data', 'page', 'pageSize', 'total', 'totalPages']);
    expect(page.data.map((qr) => qr.id)).toContain(created.quoteId);
    expect((await lp.quoteRequests.list({ status: 'open' })).data.map((qr) => qr.id)).toContain(
      created.quoteId,
    );

    const envelope = await lp.quotes.create({ quoteRequestId: created.quoteId, outputAmount: '2490000' });
    expect(envelope.quote).toMatchObject({
      quoteRequestId: created.quoteId,
      outputAmount: '2490000',
      status: 'active',
    });
    expect(await lp.quotes.get(envelope.quoteId)).toEqual(envelope);
    const mine = await mm.quotes.list({ quoteRequestId: created.quoteId });
    expect(mine.quotes.map((q) => q.id)).toEqual([envelope.quoteId]);
    expect(mine.total).toBe(1);
    expect((await lp.quotes.list()).quotes.map((q) => q.id)).toContain(envelope.quoteId);

    const accepted = await mm.quotes.accept(envelope.quoteId);
    expect(accepted.acceptedQuote).toMatchObject({ id: envelope.quoteId, status: 'accepted' });
    expect(accepted.declinedCount).toBe(0);
    expect(accepted.quoteRequest.status).toBe('accepted');

    const fetched = await mm.quotes.get(envelope.quoteId);
    const signature = await signQuote(h.offerer, fetched.typedData);
    expect(signature).toBe(await h.offerer.signTypedData(fetched.typedData as any));
    expect(await recoverTypedDataAddress({ ...(fetched.typedData as any), signature })).toBe(
      h.offerer.address,
    );
    // A wallet client signs the same bytes.
    const wallet = createWalletClient({
      account: h.offerer,
      transport: http(h.registry.chain(h.chainA)!.rpcUrl),
    });
    expect(await signQuote(wallet, fetched.typedData)).toBe(signature);

    const swap = await mm.swaps.execute({ orderId: fetched.orderId, quoteId: fetched.quoteId, signature });
    expect(swap.orderId).toBe(fetched.orderId);
    expect(swap.blockchainOrderId).toBe(fetched.quote.signingHash);
    expect(swap.order.status).toBe('created');
    // Same request again: the same order, not a second one.
    expect(
      (await mm.swaps.execute({ orderId: fetched.orderId, quoteId: fetched.quoteId, signature })).orderId,
    ).toBe(swap.orderId);

    const order = await mm.orders.get(swap.orderId);
    expect(order).toMatchObject({ orderId: swap.orderId, status: 'created', quoteId: envelope.quoteId });
    const orders = await mm.orders.list({ includeQuote: true });
    expect(orders.orders.map((o) => o.orderId)).toEqual([swap.orderId]);
    expect(orders.orders[0]!.quote?.id).toBe(envelope.quoteId);
    expect(orders).toMatchObject({ total: 1, page: 1, totalPages: 1 });
    expect((await lp.orders.list({ status: 'created' })).orders.map((o) => o.orderId)).toEqual([
      swap.orderId,
    ]);
    expect((await mm.orders.list({ status: 'completed' })).orders).toEqual([]);

    const publicOrders = await anon.public.orders({ address: h.offerer.address.toLowerCase() });
    expect(publicOrders).toMatchObject({ status: 'success', total: 1, page: 1 });
    expect(publicOrders.data.orders.map((o) => o.id)).toEqual([swap.orderId]);
    const detail = await anon.public.order(swap.orderId);
    expect(detail.data.order).toMatchObject({ id: swap.orderId, status: 'created', source: 'order' });
    expect(detail.data.events.map((e) => e.type)).toEqual(['order.created']);
    const found = await anon.public.orders({ q: detail.data.order.blockchainOrderId });
    expect(found.data.orders.map((o) => o.id)).toEqual([swap.orderId]);
    const stats = await anon.public.stats();
    expect(stats.data.outcomes.find((o) => o.status === 'created')?.orders).toBe(1);
    const recent = await anon.public.recentQuotes({ limit: 5 });
    expect(recent.data.quotes.map((q) => q.id)).toContain(envelope.quoteId);
  });

  it('sends Idempotency-Key: the same key and body replays, another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = `sdk-${Date.now()}`;
    const first = await mm.quoteRequests.create(requestInput('1100000'), { idempotencyKey: key });
    const again = await mm.quoteRequests.create(requestInput('1100000'), { idempotencyKey: key });
    expect(again.quoteId).toBe(first.quoteId);
    const reused = await apiError(mm.quoteRequests.create(requestInput('1200000'), { idempotencyKey: key }));
    expect(reused).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    const amounts = (await mm.quoteRequests.list({ pageSize: 100 })).data.map((qr) => qr.inputAmount);
    expect(amounts.filter((a) => a === '1100000')).toHaveLength(1);
    expect(amounts).not.toContain('1200000');
  });

  it('throws FerryApiError with the status, code, detail paths and nothing written', async () => {
    const missing = await apiError(mm.orders.get('ord_does_not_exist'));
    expect(missing).toMatchObject({ name: 'FerryApiError', status: 404, code: 'ORDER_NOT_FOUND' });
    expect(missing.message).toMatch(/^GET \/api\/v1\/orders\/ord_does_not_exist: 404 /);
    expect(isFerryApiError(missing, 'ORDER_NOT_FOUND')).toBe(true);
    expect(isFerryApiError(missing, 'QUOTE_NOT_FOUND')).toBe(false);
    expect(missing.retryable).toBe(false);

    const before = (await mm.quoteRequests.list({ pageSize: 100 })).total;
    const invalid = await apiError(mm.quoteRequests.create(requestInput('1.5')));
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(invalid.details.map((d) => d.path)).toEqual(['body.inputAmount']);
    const dust = await apiError(mm.quoteRequests.create(requestInput('999999')));
    expect(dust).toMatchObject({ status: 400, code: 'AMOUNT_TOO_SMALL' });
    expect(isFerryApiError(dust, 'AMOUNT_TOO_SMALL')).toBe(true);
    expect(dust.details.map((d) => d.path)).toEqual(['body.inputAmount']);
    const badChain = await apiError(mm.quoteRequests.create({ ...requestInput(), outputChain: 'nowhere' }));
    expect(badChain).toMatchObject({ status: 400, code: 'INVALID_CHAIN' });
    expect(badChain.details.map((d) => d.path)).toEqual(['body.outputChain']);
    expect((await mm.quoteRequests.list({ pageSize: 100 })).total).toBe(before);

    const pageSize = await apiError(mm.orders.list({ pageSize: 1000 }));
    expect(pageSize).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(pageSize.details.map((d) => d.path)).toEqual(['query.pageSize']);

    const forbidden = await apiError(lp.quoteRequests.create(requestInput()));
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await mm.quoteRequests.list({ pageSize: 100 })).total).toBe(before);

    const wrongKey = createFerryClient({ baseUrl: h.baseUrl, apiKey: 'fk_not_a_real_key' });
    expect(await apiError(wrongKey.orders.list())).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await apiError(anon.orders.list())).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await apiError(anon.public.order('ord_missing'))).toMatchObject({
      status: 404,
      code: 'ORDER_NOT_FOUND',
    });
    const notFoundQuote = await apiError(mm.quotes.accept('q_missing'));
    expect(notFoundQuote).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });

    const offline = createFerryClient({ baseUrl: 'http://127.0.0.1:1' });
    const network = await apiError(offline.health());
    expect(network).toMatchObject({ status: 0, code: 'NETWORK_ERROR', retryable: true });
  });

  it('signs in with Ethereum (local account and wallet client), uses the session, and logs out', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const session = await signInWithEthereum({
      client: mm,
      account,
      domain: 'ferry.test',
      uri: 'http://ferry.test',
      chainId,
    });
    expect(session.session).toMatchObject({ address: account.address, token: expect.any(String) });
    expect(session.options.apiKey).toBeUndefined();
    // The session is its own money mover: none of the API key account's orders.
    expect(await session.orders.list()).toMatchObject({ orders: [], total: 0 });
    const forOther = await apiError(session.quoteRequests.create(requestInput()));
    expect(forOther.status).toBe(403);
    expect(await session.auth.logout()).toEqual({ success: true });
    const ended = await apiError(session.orders.list());
    expect(ended).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });

    const wallet = createWalletClient({
      account: privateKeyToAccount(generatePrivateKey()),
      transport: http(h.registry.chain(h.chainA)!.rpcUrl),
    });
    const viaWallet = await signInWithEthereum({
      client: anon,
      account: wallet,
      domain: 'ferry.test',
      uri: 'http://ferry.test',
      chainId,
    });
    expect(viaWallet.session?.address).toBe(wallet.account.address);
    expect((await viaWallet.quoteRequests.list()).data).toEqual([]);

    const wrongDomain = await apiError(
      signInWithEthereum({ client: anon, account, domain: 'evil.test', uri: 'http://evil.test', chainId }),
    );
    expect(wrongDomain).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(wrongDomain.details.map((d) => d.path)).toContain('body.message');
  });

  it('reports RATE_LIMITED with retryAfter from Retry-After', async () => {
    const limited = await signInWithEthereum({
      client: anon,
      account: privateKeyToAccount(generatePrivateKey()),
      domain: 'ferry.test',
      uri: 'http://ferry.test',
      chainId,
    });
    let error: FerryApiError | null = null;
    for (let i = 0; i < 70 && !error; i++) {
      error = await limited.orders.list().then(
        () => null,
        (e: FerryApiError) => e,
      );
    }
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryable: true });
    expect(error!.retryAfter).toBeGreaterThan(0);
  });

  it('SSE: receives events, and resumes after a forced disconnect without loss or duplicates', async () => {
    const proxy = await startProxy(h.baseUrl);
    const reference: FerryEvent[] = [];
    const disturbed: FerryEvent[] = [];
    const errors: FerryApiError[] = [];
    let opens = 0;
    const direct = subscribeEvents({ baseUrl: h.baseUrl, onEvent: (e) => reference.push(e) });
    const flaky = subscribeEvents({
      baseUrl: proxy.url,
      reconnectDelayMs: 50,
      onEvent: (e) => disturbed.push(e),
      onOpen: () => opens++,
      onError: (e) => errors.push(e),
    });
    try {
      await waitFor(() => expect(direct.connected && flaky.connected).toBe(true));
      const first = await mm.quoteRequests.create(requestInput('1300000'));
      await waitFor(() => expect(disturbed.map((e) => e.data.id)).toContain(first.quoteId));
      await waitFor(() => expect(reference.map((e) => e.data.id)).toContain(first.quoteId));
      const firstEvent = disturbed.find((e) => e.data.id === first.quoteId)!;
      expect(firstEvent).toMatchObject({
        type: 'quoteRequest.created',
        data: { status: 'open', inputAmount: '1300000' },
      });
      expect(flaky.lastEventId).toBe(firstEvent.id);

      // Cut the stream and keep it down while events happen.
      proxy.refuse = true;
      proxy.drop();
      await waitFor(() => expect(errors.length).toBeGreaterThan(0));
      expect(flaky.connected).toBe(false);
      const missed = [
        await mm.quoteRequests.create(requestInput('1400000')),
        await mm.quoteRequests.create(requestInput('1500000')),
      ];
      await waitFor(() => expect(reference.map((e) => e.data.id)).toContain(missed[1]!.quoteId));
      expect(disturbed.map((e) => e.data.id)).not.toContain(missed[0]!.quoteId);
      proxy.refuse = false;

      const last = await mm.quoteRequests.create(requestInput('1600000'));
      await waitFor(() => expect(disturbed.map((e) => e.data.id)).toContain(last.quoteId));
      await waitFor(() => expect(reference.map((e) => e.data.id)).toContain(last.quoteId));
      expect(opens).toBeGreaterThanOrEqual(2);

      const ids = (events: FerryEvent[]) =>
        events
          .filter((e) => e.id >= firstEvent.id && e.id <= flaky.lastEventId!)
          .map((e) => `${e.id} ${e.type}`);
      expect(ids(disturbed)).toEqual(ids(reference));
      expect(new Set(disturbed.map((e) => e.id)).size).toBe(disturbed.length);
      for (const qr of [...missed, last]) {
        expect(disturbed.filter((e) => e.data.id === qr.quoteId).map((e) => e.type)).toEqual([
          'quoteRequest.created',
        ]);
      }

      // A new subscription given lastEventId replays what came after it.
      const replayed: FerryEvent[] = [];
      const resumed = subscribeEvents({
        baseUrl: h.baseUrl,
        lastEventId: firstEvent.id,
        onEvent: (e) => replayed.push(e),
      });
      try {
        await waitFor(() => expect(replayed.map((e) => e.data.id)).toContain(last.quoteId));
        expect(replayed.map((e) => `${e.id} ${e.type}`)).toEqual(ids(reference).slice(1));
      } finally {
        resumed.close();
      }
    } finally {
      direct.close();
      flaky.close();
      await proxy.close();
    }
  });

  it('WebSocket: delivers channel events, resubscribes after a drop, and reconnects when pongs stop', async () => {
    const proxy = await startProxy(h.baseUrl);
    const events: { event: FerryEvent; channel: WsChannel }[] = [];
    const statuses: WsStatus[] = [];
    const errors: FerryApiError[] = [];
    const sub = subscribeWs({
      baseUrl: proxy.url,
      apiKey: lpAccount.apiKey,
      channels: ['quoteRequests', 'account'],
      pingIntervalMs: 150,
      reconnectDelayMs: 50,
      onEvent: (event, channel) => events.push({ event, channel }),
      onStatus: (s) => statuses.push(s),
      onError: (e) => errors.push(e),
    });
    try {
      await sub.ready;
      expect(sub.status).toBe('subscribed');
      const qr = await mm.quoteRequests.create(requestInput('1700000'));
      await waitFor(() => expect(events.map((e) => e.event.data.id)).toContain(qr.quoteId));
      expect(events.find((e) => e.event.data.id === qr.quoteId)).toMatchObject({
        channel: 'quoteRequests',
        event: { type: 'quoteRequest.created', data: { inputAmount: '1700000' } },
      });
      // Several pings answered with pongs: no reconnect.
      const subscribedBefore = statuses.filter((s) => s === 'subscribed').length;
      await waitFor(() => expect(sub.pongs).toBeGreaterThanOrEqual(3));
      expect(errors).toEqual([]);
      expect(statuses.filter((s) => s === 'subscribed').length).toBe(subscribedBefore);

      // A dropped connection: reconnects and subscribes again.
      proxy.drop();
      await waitFor(() =>
        expect(statuses.filter((s) => s === 'subscribed').length).toBe(subscribedBefore + 1),
      );
      const afterDrop = await mm.quoteRequests.create(requestInput('1800000'));
      await waitFor(() => expect(events.map((e) => e.event.data.id)).toContain(afterDrop.quoteId));

      // A silent peer (no bytes either way): the missing pong ends it, then it reconnects.
      proxy.stall(true);
      await waitFor(() => expect(errors.map((e) => e.summary)).toContain('no pong: reconnecting'));
      proxy.stall(false);
      await waitFor(() =>
        expect(statuses.filter((s) => s === 'subscribed').length).toBe(subscribedBefore + 2),
      );
      const afterStall = await mm.quoteRequests.create(requestInput('1900000'));
      await waitFor(() => expect(events.map((e) => e.event.data.id)).toContain(afterStall.quoteId));
      expect(events.filter((e) => e.event.data.id === afterStall.quoteId)).toHaveLength(1);
    } finally {
      sub.close();
      await proxy.close();
    }
    expect(sub.status).toBe('closed');
  });

  it('WebSocket: a refused channel or credential rejects `ready` with the typed error and stops', async () => {
    const forbidden = subscribeWs({
      baseUrl: h.baseUrl,
      apiKey: mmAccount.apiKey,
      channels: ['quoteRequests'],
      onEvent: () => {},
    });
    const refused = await apiError(forbidden.ready);
    expect(refused).toMatchObject({ code: 'FORBIDDEN' });
    expect(refused.details.map((d) => d.path)).toEqual(['message.channels.0']);
    expect(forbidden.status).toBe('closed');

    const badKey = subscribeWs({
      baseUrl: h.baseUrl,
      apiKey: 'fk_nope',
      channels: ['public'],
      onEvent: () => {},
    });
    const unauthorized = await apiError(badKey.ready);
    expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(unauthorized.details.map((d) => d.path)).toEqual(['headers.x-api-key']);
    expect(badKey.status).toBe('closed');
  });

  it('WebSocket: a logout closes 4001 and the client reports the end instead of reconnecting', async () => {
    const session = await signInWithEthereum({
      client: mm,
      account: privateKeyToAccount(generatePrivateKey()),
      domain: 'ferry.test',
      uri: 'http://ferry.test',
      chainId,
    });
    const statuses: WsStatus[] = [];
    const errors: FerryApiError[] = [];
    const sub = subscribeWs({
      baseUrl: h.baseUrl,
      sessionToken: session.session?.token ?? '',
      channels: ['account'],
      reconnectDelayMs: 10,
      onEvent: () => {},
      onStatus: (s) => statuses.push(s),
      onError: (e) => errors.push(e),
    });
    try {
      await sub.ready;
      expect(await session.auth.logout()).toEqual({ success: true });
      await waitFor(() => expect(sub.status).toBe('closed'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      expect(errors[0]?.summary).toMatch(/^the credential ended/);
      // Many reconnect delays later: still one connection, no further attempt.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(statuses.filter((s) => s === 'open')).toHaveLength(1);
      expect(statuses.at(-1)).toBe('closed');
      expect(errors).toHaveLength(1);
    } finally {
      sub.close();
    }
  });

  it('the reference LP bot quotes a request as it arrives on the quoteRequests channel (poll interval 1 h)', async () => {
    const lines: { level: string; msg: string }[] = [];
    const at = (level: string) => (_obj: object, msg: string) => void lines.push({ level, msg });
    const log: BotLog = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    const bot = createLpBot({
      api: createFerryApi({ baseUrl: h.baseUrl, apiKey: lpAccount.apiKey }),
      privateKey: ANVIL_KEYS[4]!,
      spreadBps: 30,
      log,
      journal: h.lpJournal(),
    });
    bot.start(3_600_000);
    try {
      await waitFor(() =>
        expect(lines.map((l) => l.msg)).toContain(
          'streaming quote requests and order updates over WebSocket; polling stays as the fallback',
        ),
      );
      // Let the first pass finish, so only a streamed event can trigger the next one.
      await bot.runOnce();
      const qr = await mm.quoteRequests.create(requestInput('2000000'));
      await waitFor(async () => {
        const quotes = (await mm.quotes.list({ quoteRequestId: qr.quoteId })).quotes;
        expect(quotes.map((q) => [q.liquidityProviderId, q.outputAmount])).toEqual([
          [lpAccount.id, '1994000'],
        ]);
      });
      expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    } finally {
      await bot.stop();
    }
  });
});
