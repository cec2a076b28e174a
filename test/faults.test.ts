import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../src/devnet/anvil-process.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { orderTermsFrom } from '../src/domain/order-typed-data.ts';
import { approveEscrow, fillOrder } from './support/chain-actors.ts';
import {
  anvilPid,
  killProcess,
  PG_BIN,
  REDIS_SERVER,
  startPrivateCluster,
  startRedis,
  waitFor,
  waitForExit,
} from './support/fault-processes.ts';
import { quoteRequestBody, WORKER_ON } from './support/fixtures.ts';
import { type Harness, type HttpResponse, startHarness } from './support/harness.ts';
import { sleep } from './support/polling.ts';
import { freePort } from './support/processes.ts';
import { waitForStatus } from './support/swap-steps.ts';

/**
 * Faults, each bounded in time: the database goes away (a private PostgreSQL cluster, stopped and started),
 * Redis goes away (a private redis-server, killed), a chain's RPC goes away (one anvil stopped and restarted on
 * the same port and state file). Ferry answers 503 in the documented body rather than 500, recovers without a
 * restart, and the settlement worker retries with backoff and resumes.
 */

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const HIGH_LIMITS = { apiKey: 1_000_000, session: 1_000_000, ip: 1_000_000 };

function expectUnavailable(res: HttpResponse, context: string) {
  expect(res.status, context).toBe(503);
  expect(res.body, context).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE', details: [] });
  expect(res.headers.get('retry-after'), context).toMatch(/^\d+$/);
}

describe.skipIf(!PG_BIN)('the database is unavailable for a moment', () => {
  let cluster: Awaited<ReturnType<typeof startPrivateCluster>>;
  let h: Harness;
  let mm: { id: string; apiKey: string };

  beforeAll(async () => {
    cluster = await startPrivateCluster();
    h = await startHarness({ databaseUrl: cluster.url, rateLimits: HIGH_LIMITS });
    mm = await h.createAccount('moneyMover');
  }, 120_000);
  afterAll(async () => {
    // The database may be down if a test failed half-way: start it so the app closes cleanly.
    try {
      cluster?.start();
    } catch {}
    await h?.close();
    cluster?.destroy();
  });

  it('answers 503 SERVICE_UNAVAILABLE (not 500) while PostgreSQL is stopped, and recovers without a restart', async () => {
    expect((await h.http('GET', '/readyz')).status).toBe(200);
    const created = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      body: quoteRequestBody(h),
    });
    expect(created.status).toBe(201);

    // Requests keep flowing (a reader and a writer) across the outage; every answer is 2xx or a clean 503.
    const seen: { status: number; body: unknown; path: string }[] = [];
    let flowing = true;
    const flow = (async () => {
      for (let i = 0; i < 10_000 && flowing; i++) {
        const read = await h.http('GET', '/api/v1/quote-requests?timeWindow=3600', { apiKey: mm.apiKey });
        seen.push({ status: read.status, body: read.body, path: 'GET quote-requests' });
        const pub = await h.http('GET', '/api/public/orders');
        seen.push({ status: pub.status, body: pub.body, path: 'GET public orders' });
        await sleep(20);
      }
    })();

    await sleep(300);
    cluster.stop();
    try {
      await outage();
    } finally {
      cluster.start();
    }
    try {
      await recovery();
    } finally {
      flowing = false;
      await flow;
    }

    const statuses = new Set(seen.map((s) => s.status));
    expect(
      [...statuses].every((s) => s === 200 || s === 503),
      JSON.stringify([...statuses]),
    ).toBe(true);
    for (const s of seen.filter((x) => x.status === 503)) {
      expect(s.body, s.path).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE', details: [] });
    }
    expect(statuses.has(503)).toBe(true);
    expect(seen.at(-1)!.status).toBe(200);

    async function outage() {
      // Every kind of request: authenticated read (the API key lookup itself needs the database), public read,
      // write, and readiness.
      expectUnavailable(await h.http('GET', '/api/v1/orders', { apiKey: mm.apiKey }), 'GET /api/v1/orders');
      // The cached public page needs no database (its version comes from the event tailer): it still answers,
      // as current as the last event read. A page not in the cache needs the database.
      expect((await h.http('GET', '/api/public/orders')).status).toBe(200);
      expectUnavailable(
        await h.http('GET', '/api/public/orders?pageSize=7'),
        'GET /api/public/orders?pageSize=7',
      );
      expectUnavailable(
        await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body: quoteRequestBody(h) }),
        'POST /api/v1/quote-requests',
      );
      const ready = await h.http('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', reason: 'database unreachable' });
      expect((await h.http('GET', '/healthz')).status).toBe(200);
      await sleep(500);
    }

    // Recovery, same process: readiness first, then reads and writes.
    async function recovery() {
      await waitFor(
        'readiness after the restart',
        20_000,
        async () => (await h.http('GET', '/readyz')).status === 200,
      );
      const again = await waitFor('an authenticated read after the restart', 20_000, async () => {
        const res = await h.http('GET', '/api/v1/quote-requests?timeWindow=3600', { apiKey: mm.apiKey });
        return res.status === 200 ? res : null;
      });
      expect(again.body.data.map((q: { id: string }) => q.id)).toContain(created.body.data.quoteId);
      const written = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h),
      });
      expect(written.status).toBe(201);
    }
  }, 90_000);
});

describe.skipIf(!REDIS_SERVER)('Redis goes away', () => {
  let redis: ChildProcess;
  let port: number;
  let h: Harness;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    h = await startHarness({
      redisUrl: `redis://127.0.0.1:${port}`,
      redisKeyPrefix: `ferry-faults-${process.pid}-${Date.now()}:`,
      rateLimits: { apiKey: 5, session: 60, ip: 1_000_000 },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    if (redis) await killProcess(redis);
  });

  async function burst(apiKey: string, n: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await h.http('GET', '/api/v1/orders', { apiKey })).status);
    return statuses;
  }

  it('with Redis up, the per-key limit holds (counted in Redis)', async () => {
    const { apiKey } = await h.createAccount('moneyMover', 'before');
    expect(await burst(apiKey, 7)).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('after Redis is killed, requests still succeed, Ferry keeps running, and it recovers when Redis is back', async () => {
    await killProcess(redis);
    const { apiKey } = await h.createAccount('moneyMover', 'during');
    const statuses = await burst(apiKey, 7);
    // Degraded, never broken: no 5xx, and the first requests of a fresh key pass.
    expect(
      statuses.every((s) => s === 200 || s === 429),
      JSON.stringify(statuses),
    ).toBe(true);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    // Writes and streams-free reads still work.
    const writer = await h.createAccount('moneyMover', 'writer');
    const created = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: writer.apiKey,
      body: quoteRequestBody(h),
    });
    expect(created.status).toBe(201);
    expect((await h.http('GET', '/api/public/orders')).status).toBe(200);
    expect((await h.http('GET', '/readyz')).status).toBe(200);

    // Redis comes back on the same port: the shared limit applies again, without a restart of Ferry.
    redis = await startRedis(port);
    const after = await h.createAccount('moneyMover', 'after');
    await waitFor('the shared limit after Redis is back', 15_000, async () => {
      const res = await h.http('GET', '/api/v1/orders', { apiKey: after.apiKey });
      return res.status === 429;
    });
  }, 60_000);

  it('while Redis is down the limit degrades to a per-instance count, not to no limit', async () => {
    await killProcess(redis);
    try {
      const { apiKey } = await h.createAccount('moneyMover', 'degraded');
      expect(await burst(apiKey, 7)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    } finally {
      redis = await startRedis(port);
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------------------
// A chain RPC goes away: chain A's anvil is stopped and restarted on the same port and state file.

describe.skipIf(process.platform !== 'linux')('a chain RPC goes away', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let restarted: AnvilInstance | null = null;

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      rateLimits: HIGH_LIMITS,
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await restarted?.stop();
  });

  it('the API answers 503 for balance checks, the worker backs off without failing the order, and it resumes', async () => {
    const input = 2_000_000n;
    const output = 1_980_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const qr = await h.http('POST', '/api/v1/quote-requests', {
      apiKey: mm.apiKey,
      body: quoteRequestBody(h, { inputAmount: input.toString() }),
    });
    expect(qr.status).toBe(201);
    const quote = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: qr.body.data.quoteId, outputAmount: output.toString() },
    });
    expect(quote.status).toBe(201);
    const q = quote.body.data;
    expect((await h.http('POST', `/api/v1/quotes/${q.quoteId}/accept`, { apiKey: mm.apiKey })).status).toBe(
      200,
    );
    const signature = await h.offerer.signTypedData(q.typedData);

    // Chain A (the input chain: deposit and settlement happen there) goes away. SIGTERM makes anvil dump its state.
    const chainA = h.registry.chain(h.chainA)!;
    const port = Number(new URL(chainA.rpcUrl).port);
    const stateFile = path.join(h.dataDir, 'devnets', 'devnet-a.state.json');
    const pid = anvilPid(stateFile);
    process.kill(pid, 'SIGTERM');
    await waitForExit(pid, 10_000);

    try {
      // The order is created (no chain call on this path); the worker cannot deposit it.
      const swap = await h.http('POST', '/api/v1/swaps', {
        apiKey: mm.apiKey,
        body: { orderId: q.orderId, quoteId: q.quoteId, signature },
      });
      expect(swap.status).toBe(201);
      // A new quote request needs the offerer's balance on chain A: 503 in the documented body, not 500. (Past
      // BALANCE_CACHE_MS: the reading taken for the first request would still answer for this one.)
      h.clock.advance(h.config.balanceCacheMs / 1000);
      const refused = await h.http('POST', '/api/v1/quote-requests', {
        apiKey: mm.apiKey,
        body: quoteRequestBody(h, { inputAmount: input.toString() }),
      });
      expectUnavailable(refused, 'balance check with chain A down');

      // Several worker passes fail while the RPC is down: the order stays created, with attempts counted and
      // retries spaced out (backoff), never failed.
      await sleep(2_500);
      const during = await h.app.database.db
        .selectFrom('orders')
        .select(['status', 'failure_reason', 'attempts', 'next_attempt_at'])
        .where('id', '=', q.orderId)
        .executeTakeFirstOrThrow();
      expect(during.status).toBe('created');
      expect(during.failure_reason).toBeNull();
      expect(Number(during.attempts)).toBeGreaterThanOrEqual(2);
      // Backoff: with a 50 ms poll, 2.5 s of hot retries would be ~50 attempts.
      expect(Number(during.attempts)).toBeLessThan(12);
      const order = await h.http('GET', `/api/v1/orders/${q.orderId}`, { apiKey: mm.apiKey });
      expect(order.body.data.status).toBe('created');
    } finally {
      // Back on the same port with the same state: the registry's RPC URL is valid again.
      restarted = await startAnvil({ chainId: chainA.chainId, port, stateFile });
    }

    const deposited = await waitForStatus(h, mm.apiKey, q.orderId, 'deposited', 45_000);
    expect(deposited.details.srcChainTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(
      (await h.http('POST', '/api/v1/quote-requests', { apiKey: mm.apiKey, body: quoteRequestBody(h) }))
        .status,
    ).toBe(201);

    const fillTx = await fillOrder(h, lpWallet, {
      chain: h.chainB,
      order: orderTermsFrom(q.typedData),
      escrow: q.typedData.domain.verifyingContract,
    });
    const completed = await waitForStatus(h, mm.apiKey, q.orderId, 'completed', 45_000);
    expect(completed.details.dstChainTxHash).toBe(fillTx);
    expect(completed.failureReason).toBeNull();
  }, 150_000);
});
