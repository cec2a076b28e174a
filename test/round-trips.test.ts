import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuote, createQuoteRequest } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

if (!process.env.FERRY_TEST_PG) {
  console.warn('test/round-trips.test.ts SKIPPED: it counts PostgreSQL round trips (set FERRY_TEST_PG)');
}

/**
 * The database round trips of the hot endpoints on PostgreSQL, counted on the driver: every `query` a pg client
 * sends is one round trip (begin and commit included). The process's event tailer reads on its own after each
 * commit, whatever the number of clients; it is not part of a request and is left out, as is webhook dispatch.
 */
describe.skipIf(!process.env.FERRY_TEST_PG)('round trips per hot endpoint (PostgreSQL)', () => {
  let h: Harness;
  const sent: string[] = [];
  const query = pg.Client.prototype.query;

  beforeAll(async () => {
    // Slow background loops, so only the requests' own queries run while counting.
    h = await startHarness({ expirySweepMs: 60_000 });
    // Webhook dispatch runs after every commit, on its own like the tailer: stopped so it is not counted.
    await h.app.webhooks.stop();
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
      if (!String(text).includes('pg_snapshot_xmin')) sent.push(String(text));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  }, 120_000);
  afterAll(async () => {
    pg.Client.prototype.query = query;
    await h?.close();
  });

  async function count(fn: () => Promise<unknown>): Promise<number> {
    sent.length = 0;
    await fn();
    return sent.length;
  }

  /** request → quote → accept → swap, each step counted. */
  async function swapFlow(mm: { apiKey: string }, lp: { apiKey: string }) {
    const counts: Record<string, number> = {};
    let requestId = '';
    counts.quoteRequest = await count(async () => {
      requestId = await createQuoteRequest(h, mm.apiKey);
    });
    let quote!: Awaited<ReturnType<typeof createQuote>>;
    counts.quote = await count(async () => {
      quote = await createQuote(h, lp.apiKey, requestId);
    });
    counts.accept = await count(async () => {
      const res = await h.http('POST', `/api/v1/quotes/${quote.quoteId}/accept`, { apiKey: mm.apiKey });
      expect(res.status).toBe(200);
    });
    const signature = await h.offerer.signTypedData(quote.typedData);
    counts.swap = await count(async () => {
      const res = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: quote.orderId, quoteId: quote.quoteId, signature },
      });
      expect(res.status).toBe(201);
    });
    return counts;
  }

  it('writes: the key lookup, the reads the rules need, then one statement for a single row change with its events, or begin, the changes, one event append, commit', async () => {
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider');
    expect(await swapFlow(mm, lp)).toEqual({
      // key lookup + one statement: the offerer's lock, its open requests summed after it, the insert if the
      // balance covers them, and its event (insertCoveredQuoteRequests; the balance reading was cached)
      quoteRequest: 2,
      // key + request with the LP's fill address, then one statement: the (LP, chain, token) lock, its promises
      // from the running totals, the insert (which the totals' triggers follow) and its event (database.write)
      quote: 3,
      // key + the quote with its request (one query), begin + request CAS + quote CAS + decline the others (one
      // statement) + events + commit
      accept: 8,
      // key + the quote with its request + existing order with the revert throttle's count (one query each), then
      // the insert and its event as one statement
      swap: 4,
    });
  });

  it('reads: listings read their quotes and requests in one query each, and the public page cache none', async () => {
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider');
    await swapFlow(mm, lp);
    await swapFlow(mm, lp);
    // The page is cached until the next event reaches this instance's tailer; then a read sends no query.
    let publicOrdersCached = -1;
    for (let i = 0; i < 50 && publicOrdersCached !== 0; i++) {
      publicOrdersCached = await count(async () => {
        expect((await h.http('GET', '/api/public/orders')).status).toBe(200);
      });
    }
    const counts = {
      publicOrdersCached,
      // key + page + count + quotes + requests, however many orders the page holds
      accountOrdersWithQuotes: await count(async () => {
        const res = await h.http('GET', '/api/v1/orders?includeQuote=true', { apiKey: mm.apiKey });
        expect(res.body.data.orders.filter((o: any) => o.quote).length).toBe(2);
      }),
      // quotes + their requests
      recentQuotes: await count(async () => {
        const res = await h.http('GET', '/api/public/quotes/recent');
        expect(res.body.data.quotes.length).toBeGreaterThanOrEqual(2);
      }),
    };
    expect(counts).toEqual({ publicOrdersCached: 0, accountOrdersWithQuotes: 5, recentQuotes: 2 });
  });
});
