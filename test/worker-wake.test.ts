import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type FerryAppInstance } from '../src/app.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { anvilKnobs } from './support/anvil-knobs.ts';
import { approveEscrow, fillSwap } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';
import { REDIS_URL } from './support/two-instances.ts';
import { startWorkerProcess } from './support/worker-process.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
/** The worker's fallback poll, as long as the setting allows: anything that moves sooner was woken. */
const POLL_MS = 60_000;
/** Well inside one poll: an order that gets there in this time was moved by a wake-up, not by the poll. */
const WITHIN_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function counter(h: Harness, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await h.app.metrics.registry.getSingleMetric(name)?.get();
  const matching = metric?.values.filter((v) =>
    Object.entries(labels).every(([key, value]) => v.labels[key] === value),
  );
  return (matching ?? []).reduce((sum, v) => sum + v.value, 0);
}

describe('the settlement worker wakes on new blocks and new orders, not only on its poll', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness({
      worker: { ...WORKER_ON, pollMs: POLL_MS },
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('on instant devnets a swap completes long before the poll, and an idle worker then makes no passes', async () => {
    const input = 1_000_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const orderWakes = await counter(h, 'ferry_settlement_wakes_total', { source: 'order' });
    const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', WITHIN_MS);
    expect(await counter(h, 'ferry_settlement_wakes_total', { source: 'order' })).toBeGreaterThan(orderWakes);
    const blockWakes = await counter(h, 'ferry_settlement_wakes_total', { source: 'block' });
    await fillSwap(h, lpWallet, swap, 990_000n);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', WITHIN_MS);
    expect(await counter(h, 'ferry_settlement_wakes_total', { source: 'block' })).toBeGreaterThan(blockWakes);

    // The settle's own block may still wake one last pass; after that, nothing is mined and nothing wakes it.
    await sleep(1_000);
    const passes = await counter(h, 'ferry_settlement_passes_total');
    await sleep(3_000);
    expect(await counter(h, 'ferry_settlement_passes_total')).toBe(passes);
  }, 90_000);

  it('on 1-second blocks, with the poll a minute away, a swap completes: every step is woken by a block', async () => {
    const input = 1_000_000n;
    const output = 990_000n;
    for (const chain of h.devnets.chains) await anvilKnobs(chain.rpcUrl).blockTime(1);
    try {
      await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
      const swap = await executeSwap(h, { mm, lp }, { input, output });
      await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', WITHIN_MS);
      await fillSwap(h, lpWallet, swap, output);
      const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', WITHIN_MS);
      expect(completed.details.settlementTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      for (const chain of h.devnets.chains) await anvilKnobs(chain.rpcUrl).instant();
    }
  }, 90_000);
});

describe('a `ferry worker` process hears of new orders over Redis', () => {
  let h: Harness;
  const prefix = `ferry-test-${randomBytes(6).toString('hex')}:`;

  beforeAll(async () => {
    // The API runs no worker of its own; it publishes its commits to Redis.
    h = await startHarness({
      redisUrl: REDIS_URL,
      redisKeyPrefix: prefix,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('an order created after the worker went idle is deposited before its minute-long poll', async () => {
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 2_000_000n);
    const worker = startWorkerProcess(h, [], {
      WORKER_POLL_MS: String(POLL_MS),
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
    });
    try {
      // The first order shows the worker is up (its first pass, or the notice, deposits it).
      const first = await executeSwap(h, { mm, lp }, { input: 1_000_000n, output: 990_000n });
      await waitForStatus(h, mm.apiKey, first.orderId, 'deposited', WITHIN_MS);
      // Let the pass woken by that deposit's block end: no block is mined after it, so only the notice is left.
      await sleep(1_000);
      const second = await executeSwap(h, { mm, lp }, { input: 1_000_000n, output: 990_000n });
      await waitForStatus(h, mm.apiKey, second.orderId, 'deposited', WITHIN_MS);
    } finally {
      await worker.stop();
    }
  }, 90_000);
});

describe('an API instance running the worker hears of orders created on another instance', () => {
  let h: Harness;
  let b: FerryAppInstance;
  let urlB: string;
  const prefix = `ferry-test-${randomBytes(6).toString('hex')}:`;

  beforeAll(async () => {
    // Instance A (the harness) runs the worker with a minute-long poll; instance B runs none.
    h = await startHarness({
      worker: { ...WORKER_ON, pollMs: POLL_MS },
      redisUrl: REDIS_URL,
      redisKeyPrefix: prefix,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    b = await createApp({
      config: { ...h.config, port: 0, worker: { ...h.config.worker, enabled: false } },
      registry: h.registry,
      clock: h.clock,
      log: pino({ level: 'silent' }),
    });
    urlB = await b.listen();
  });
  afterAll(async () => {
    await b?.close();
    await h?.close();
  });

  it("an order created on B is deposited by A's worker before its poll", async () => {
    const mm = await h.createAccount('moneyMover');
    const lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 1_000_000n);
    // A's first pass runs at start; let it end, so that only a wake-up can look at B's order.
    await sleep(1_000);
    const noticeWakes = await counter(h, 'ferry_settlement_wakes_total', { source: 'notice' });
    const viaB: Harness = {
      ...h,
      http: (method, urlPath, options = {}) => h.http(method, urlPath, { ...options, baseUrl: urlB }),
    };
    const swap = await executeSwap(viaB, { mm, lp }, { input: 1_000_000n, output: 990_000n });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited', WITHIN_MS);
    expect(await counter(h, 'ferry_settlement_wakes_total', { source: 'notice' })).toBeGreaterThan(
      noticeWakes,
    );
  }, 90_000);
});
