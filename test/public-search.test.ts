import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { approveEscrow, fillSwap } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);

/** GET /api/public/orders?q= and GET /api/public/stats on a real server, settled on real chains. */
describe('public search and stats', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let completed: { orderId: string; orderHash: string; typedData: { message: Record<string, string> } };
  let completedDetails: { srcChainTxHash: string; dstChainTxHash: string; settlementTxHash: string };
  let pendingId: string;
  const input = 3_000_000n;
  const output = 2_990_000n;

  const search = async (q: string) => {
    const res = await h.http('GET', `/api/public/orders?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    return res.body.data.orders.map((o: { id: string }) => o.id) as string[];
  };

  beforeAll(async () => {
    h = await startHarness({ worker: WORKER_ON });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    await fillSwap(h, lpWallet, swap, output);
    const { details } = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed');
    completedDetails = {
      srcChainTxHash: details.srcChainTxHash,
      dstChainTxHash: details.dstChainTxHash,
      settlementTxHash: details.settlementTxHash,
    };
    completed = swap as never;
    // No allowance left: this one stays `created` (its deposit cannot happen).
    pendingId = (await executeSwap(h, { mm, lp }, { input: 1_000_000n, output: 990_000n })).orderId;
  }, 120_000);
  afterAll(async () => h?.close());

  it('the public order carries the blockchain order id, the fill address, completedAt and the deadlines', async () => {
    const res = await h.http('GET', `/api/public/orders/${completed.orderId}`);
    const order = res.body.data.order;
    const { message } = completed.typedData;
    expect(order).toMatchObject({
      blockchainOrderId: completed.orderHash,
      filler: lpWallet.address,
      openDeadline: message.openDeadline,
      fillDeadline: message.fillDeadline,
      inputAmount: input.toString(),
      outputAmount: output.toString(),
    });
    expect(Date.parse(order.completedAt)).toBeGreaterThanOrEqual(Date.parse(order.createdAt));
    // Never an account id or key in the public view.
    expect(JSON.stringify(res.body)).not.toMatch(/acc_|fry_|key_/);
    const pending = (await h.http('GET', `/api/public/orders/${pendingId}`)).body.data.order;
    expect(pending).toMatchObject({ completedAt: null, filler: lpWallet.address, status: 'created' });
  });

  it('q finds an order by id, blockchain order id and each tx hash (any case)', async () => {
    expect(await search(completed.orderId)).toEqual([completed.orderId]);
    expect(await search(completed.orderHash)).toEqual([completed.orderId]);
    expect(await search(`0x${completed.orderHash.slice(2).toUpperCase()}`)).toEqual([completed.orderId]);
    for (const tx of Object.values(completedDetails)) expect(await search(tx)).toEqual([completed.orderId]);
    expect(new Set(Object.values(completedDetails)).size).toBe(3);
    // Well-formed but unknown: an empty page, not an error.
    expect(await search(`0x${'ab'.repeat(32)}`)).toEqual([]);
    expect(await search('ord_nothing_here')).toEqual([]);
  });

  it('q with an address matches offerer, recipient and fill address; `address` keeps matching offerer or recipient only', async () => {
    const both = [pendingId, completed.orderId];
    expect(await search(h.offerer.address)).toEqual(both);
    expect(await search(h.otherWallet.address.toLowerCase())).toEqual(both);
    expect(await search(lpWallet.address)).toEqual(both);
    const old = await h.http('GET', `/api/public/orders?address=${lpWallet.address}`);
    expect(old.status).toBe(200);
    expect(old.body.total).toBe(0);
    const paged = await h.http('GET', `/api/public/orders?q=${lpWallet.address}&pageSize=1&page=2`);
    expect(paged.body).toMatchObject({ total: 2, page: 2, pageSize: 1, totalPages: 2 });
    expect(paged.body.data.orders.map((o: { id: string }) => o.id)).toEqual([completed.orderId]);
  });

  it('q refuses garbage with 400 on query.q', async () => {
    const cases: [string, string][] = [
      ['0x1234', 'a 0x value must be an address (40 hex digits) or an order id or tx hash (64 hex digits)'],
      [
        `0x${'a'.repeat(63)}`,
        'a 0x value must be an address (40 hex digits) or an order id or tx hash (64 hex digits)',
      ],
      [`0x${'g'.repeat(64)}`, 'must be an order id, a blockchain order id, a transaction hash or an address'],
      [
        'ord 1; drop table orders',
        'must be an order id, a blockchain order id, a transaction hash or an address',
      ],
      ['<script>', 'must be an order id, a blockchain order id, a transaction hash or an address'],
    ];
    for (const [q, message] of cases) {
      const res = await h.http('GET', `/api/public/orders?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toEqual({
        error: message,
        code: 'VALIDATION_ERROR',
        details: [{ path: 'query.q', message }],
      });
    }
    for (const q of ['', 'x'.repeat(129)]) {
      const res = await h.http('GET', `/api/public/orders?q=${q}`);
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('query.q');
    }
    const both = await h.http('GET', `/api/public/orders?q=${pendingId}&address=${h.offerer.address}`);
    expect(both.status).toBe(400);
    expect(both.body.details).toEqual([{ path: 'query.q', message: 'give either q or address, not both' }]);
  });

  it('GET /api/public/stats: volume per day, pair and token, fill times, outcomes; cached between changes', async () => {
    h.clock.advance(6); // past the stats' minimum age, whatever earlier requests cached
    const res = await h.http('GET', '/api/public/stats');
    expect(res.status).toBe(200);
    const stats = res.body.data;
    const order = (await h.http('GET', `/api/public/orders/${completed.orderId}`)).body.data.order;
    expect(stats.windowDays).toBe(30);
    expect(stats.volume).toEqual([
      {
        day: order.completedAt.slice(0, 10),
        inputChain: h.chainA,
        outputChain: h.chainB,
        inputToken: h.usdcA,
        inputAmount: input.toString(),
        // PROTOCOL_FEE_BPS is 0 here: no fee was taken.
        protocolFee: '0',
        orders: 1,
      },
    ]);
    expect(
      stats.fillTimes.map((b: { orders: number }) => b.orders).reduce((a: number, b: number) => a + b),
    ).toBe(1);
    expect(stats.fillTimes[0]).toEqual({ fromSeconds: 0, toSeconds: 30, orders: expect.any(Number) });
    expect(stats.fillTimes.at(-1)).toMatchObject({ fromSeconds: 3600, toSeconds: null });
    expect(stats.outcomes).toEqual([
      { status: 'created', orders: 1 },
      { status: 'deposited', orders: 0 },
      { status: 'filled', orders: 0 },
      { status: 'completed', orders: 1 },
      { status: 'failed', orders: 0 },
      { status: 'refunded', orders: 0 },
    ]);

    // A new order within the minimum age: the same (cached) answer; after it, the new count.
    await executeSwap(h, { mm, lp }, { input: 1_000_000n, output: 990_000n });
    const cached = (await h.http('GET', '/api/public/stats')).body.data;
    expect(cached.generatedAt).toBe(stats.generatedAt);
    h.clock.advance(6);
    const fresh = (await h.http('GET', '/api/public/stats')).body.data;
    expect(fresh.generatedAt).not.toBe(stats.generatedAt);
    expect(fresh.outcomes[0]).toEqual({ status: 'created', orders: 2 });
  });

  it('the new routes are in the OpenAPI document, public, with operation ids', async () => {
    const doc = (await h.http('GET', '/openapi.json')).body;
    const stats = doc.paths['/api/public/stats'].get;
    expect(stats).toMatchObject({
      operationId: 'getPublicStats',
      security: [],
      summary: 'Order statistics (public)',
    });
    const list = doc.paths['/api/public/orders'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toContain('q');
  });
});
