import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FerryAppInstance } from '../src/app.ts';
import type { OrderChange } from '../src/domain/lifecycle.ts';
import { publicOrderView } from '../src/domain/public-views.ts';
import { createDatabase, type FerryDatabase } from '../src/store/engine/database.ts';
import { appendEvents, latestEventId } from '../src/store/engine/events-store.ts';
import { transitionOrder } from '../src/store/ledgers/settlement-store.ts';
import { findOrder } from '../src/store/tables/orders-store.ts';
import { quoteRequestBody } from './support/fixtures.ts';
import type { Harness } from './support/harness.ts';
import { SseClient, WsClient, wsUrl } from './support/stream-clients.ts';
import { startTwoInstances, type TwoInstances } from './support/two-instances.ts';

const WRITERS = 8;
const SWAPS_PER_WRITER = 2;
const HOLD_MS = 2000;

if (!process.env.FERRY_TEST_PG) {
  console.warn('test/event-ordering.test.ts SKIPPED: it needs PostgreSQL + Redis (set FERRY_TEST_PG)');
}

/**
 * Two instances on one PostgreSQL + Redis, eight writers spread over both, and a transaction that appended an
 * event and stays open for two seconds while the others commit larger ids. Every subscriber on either instance
 * must receive every event exactly once, in strictly increasing id order, and each order's statuses in order.
 * A tailer that read past the open transaction would skip its event (or deliver it out of order).
 */
describe.skipIf(!process.env.FERRY_TEST_PG)('event order across instances (PostgreSQL + Redis)', () => {
  let two: TwoInstances;
  let h: Harness;
  let b: FerryAppInstance;
  let urlB: string;
  let slowDb: FerryDatabase;

  beforeAll(async () => {
    // Slow polling: delivery must come from commit notices and the tailer's own retries, not from the poll.
    two = await startTwoInstances({ maxStreamsPerClient: 10 });
    ({ h, b, urlB } = two);
    slowDb = createDatabase({ databaseUrl: h.config.databaseUrl });
  }, 120_000);
  afterAll(async () => {
    await slowDb?.destroy();
    await two?.close();
  });

  async function call(base: string, method: string, path: string, apiKey: string, body?: unknown) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  }

  /** What the settlement worker's `move` does: a compare-and-set of the status with its event, one unit of work. */
  async function move(database: FerryDatabase, orderId: string, from: string, change: OrderChange) {
    const now = h.clock.now();
    const moved = await database.transaction(async (trx, uow) => {
      if (!(await transitionOrder(trx, orderId, from as never, change, now, 'test'))) return false;
      const order = await findOrder(trx, orderId);
      if (!order) return false;
      uow.emit({
        type: 'order.updated',
        occurredAt: now,
        data: publicOrderView(order),
        accountIds: [order.moneyMoverAccountId, order.liquidityProviderAccountId],
      });
      return true;
    });
    expect(moved).toBe(true);
  }

  it('every subscriber gets every event once, ids strictly increasing, order statuses in order', async () => {
    const urls = [h.baseUrl, urlB];
    const databases = [h.app.database, b.database];
    const watcher = await h.createAccount('moneyMover', 'watcher');
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider');
    const start = await latestEventId(h.app.database.db);

    const sseA = await SseClient.open(`${h.baseUrl}/api/public/stream`, { 'x-api-key': watcher.apiKey });
    const sseB = await SseClient.open(`${urlB}/api/public/stream`, { 'x-api-key': watcher.apiKey });
    const wsB = await WsClient.connect(wsUrl(urlB), { 'x-api-key': watcher.apiKey });
    await wsB.request({ op: 'subscribe', channels: ['public'] }, (f) => f.op === 'subscribed');

    // The slow transaction takes its xid (and so the smallest event id) before any writer starts.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let committedDuringHold = 0;
    const slow = slowDb.db.transaction().execute(async (trx) => {
      await appendEvents(trx, [
        {
          type: 'quoteRequest.created',
          occurredAt: h.clock.now(),
          data: { id: 'qr_slow_transaction' },
          accountIds: [],
        },
      ]);
      release();
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
      committedDuringHold = (await latestEventId(h.app.database.db)) > start ? 1 : 0;
    });
    await held;

    const writer = async (w: number) => {
      for (let i = 0; i < SWAPS_PER_WRITER; i++) {
        const [x, y] = [urls[(w + i) % 2]!, urls[(w + i + 1) % 2]!];
        const qr = await call(x, 'POST', '/api/v1/quote-requests', mm.apiKey, quoteRequestBody(h));
        const quote = await call(y, 'POST', '/api/v1/quotes', lp.apiKey, {
          quoteRequestId: qr.quoteId,
          outputAmount: '990000',
        });
        await call(x, 'POST', `/api/v1/quotes/${quote.quoteId}/accept`, mm.apiKey);
        const signature = await h.offerer.signTypedData(quote.typedData);
        await call(y, 'POST', '/api/v1/swaps', mm.apiKey, {
          orderId: quote.orderId,
          quoteId: quote.quoteId,
          signature,
        });
        await move(databases[w % 2]!, quote.orderId, 'created', { status: 'deposited' });
        await move(databases[(w + 1) % 2]!, quote.orderId, 'deposited', { status: 'filled' });
        await move(databases[w % 2]!, quote.orderId, 'filled', { status: 'completed' });
      }
    };
    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), slow]);
    expect(committedDuringHold).toBe(1);

    const stored = await h.app.database.db
      .selectFrom('events')
      .select(['id', 'type'])
      .where('id', '>', start)
      .orderBy('id')
      .execute();
    const expected = stored.map((e) => Number(e.id));
    expect(expected.length).toBe(1 + WRITERS * SWAPS_PER_WRITER * 7);

    const received = {
      sseA: () => sseA.events.map((e) => ({ id: Number(e.id), type: e.type, data: e.body.data })),
      sseB: () => sseB.events.map((e) => ({ id: Number(e.id), type: e.type, data: e.body.data })),
      wsB: () =>
        wsB.messages
          .filter((f) => f.op === 'event')
          .map((f) => ({ id: Number(f.event.id), type: f.event.type, data: f.event.data })),
    };
    for (const [name, events] of Object.entries(received)) {
      await vi.waitFor(() => expect(events().length, name).toBeGreaterThanOrEqual(expected.length), {
        timeout: 30_000,
        interval: 50,
      });
      const got = events();
      // Exactly the stored events, once each, in strictly increasing id order.
      expect(
        got.map((e) => e.id),
        name,
      ).toEqual(expected);
      const statuses = new Map<string, string[]>();
      for (const event of got) {
        if (event.type !== 'order.created' && event.type !== 'order.updated') continue;
        statuses.set(event.data.id, [...(statuses.get(event.data.id) ?? []), event.data.status]);
      }
      expect(statuses.size, name).toBe(WRITERS * SWAPS_PER_WRITER);
      for (const sequence of statuses.values()) {
        expect(sequence, name).toEqual(['created', 'deposited', 'filled', 'completed']);
      }
    }
    // The slow transaction's event has the smallest id, though it committed after all the others began.
    expect(received.sseA()[0]?.data.id).toBe('qr_slow_transaction');
    sseA.close();
    sseB.close();
    await wsB.close();
  }, 180_000);
});
