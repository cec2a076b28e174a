import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FerryApiError,
  type FerryClient,
  type FerryEvent,
  signInWithEthereum,
  subscribeEvents,
  subscribeWs,
  type WsChannel,
  type WsStatus,
} from '../sdk/src/index.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot } from '../src/lp/lp-bot.ts';
import type { BotLog } from '../src/lp/lp-bot-log.ts';
import type { Harness } from './support/harness.ts';
import {
  apiError,
  type SdkFixture,
  sdkRequestInput,
  startProxy,
  startSdkFixture,
  waitFor,
} from './support/sdk-fixture.ts';

/** The SDK's SSE and WebSocket subscriptions, and the LP bot built on them, against a started server. */
describe('typed client SDK (@ferry/client) streams against a running Ferry', () => {
  let h: Harness;
  let mmAccount: SdkFixture['mmAccount'];
  let lpAccount: SdkFixture['lpAccount'];
  let mm: FerryClient;
  let chainId: number;

  const requestInput = (inputAmount = '1000000') => sdkRequestInput(h, inputAmount);

  beforeAll(async () => {
    ({ h, mmAccount, lpAccount, mm, chainId } = await startSdkFixture());
  });
  afterAll(async () => {
    await h?.close();
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
