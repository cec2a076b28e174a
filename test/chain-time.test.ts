import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { approveEscrow, fillSwap, increaseChainTime } from './support/chain-actors.ts';
import { createQuote, createQuoteRequest, WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const HOUR = 3600;

/**
 * Deadlines count from the chains' clocks, not the server's: the escrow checks `openDeadline` against the input
 * chain's block time, the fill contract `fillDeadline` against the output chain's. Each suite here moves a
 * devnet's clock ahead (anvil time travel), which cannot be undone, so the suite has its own devnets.
 */
describe('deadlines from chain time', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  const blockTime = async (chainName: string) => {
    const client = createPublicClient({ transport: http(h.registry.chain(chainName)!.rpcUrl) });
    return Number((await client.getBlock({ blockTag: 'latest' })).timestamp);
  };
  const quoteDeadlines = async () => {
    const requestId = await createQuoteRequest(h, mm.apiKey);
    const quote = await createQuote(h, lp.apiKey, requestId);
    return {
      open: Number(quote.typedData.message.openDeadline),
      fill: Number(quote.typedData.message.fillDeadline),
    };
  };
  /** The clock is refreshed in the background; wait for a quote whose deadlines follow `chainName`'s time. */
  const waitForDeadlines = async (check: (d: { open: number; fill: number }) => boolean) => {
    const until = Date.now() + 15_000;
    let last = await quoteDeadlines();
    while (!check(last) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      last = await quoteDeadlines();
    }
    return last;
  };

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      chainClockRefreshMs: 200,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('with both clocks near the server, deadlines are the configured windows after the quote ends', async () => {
    const { open, fill } = await quoteDeadlines();
    const { quoteValiditySeconds, openWindowSeconds, fillWindowSeconds } = h.config;
    const serverNow = Math.floor(h.clock.now().getTime() / 1000);
    expect(open).toBeGreaterThanOrEqual(serverNow + quoteValiditySeconds + openWindowSeconds);
    // Within a minute of it: no clock is far ahead yet.
    expect(open).toBeLessThan(serverNow + quoteValiditySeconds + openWindowSeconds + 60);
    expect(fill - open).toBe(fillWindowSeconds);
  });

  it('an input chain an hour ahead: the typed data follows it, and the swap deposits and completes', async () => {
    await increaseChainTime(h, h.chainA, HOUR);
    const chainNow = await blockTime(h.chainA);
    const { quoteValiditySeconds: v, openWindowSeconds: o, fillWindowSeconds: f } = h.config;
    // No request from the test to the server's clock: the background refresh picks the new time up.
    const deadlines = await waitForDeadlines((d) => d.open >= chainNow + v + o);
    expect(deadlines.open).toBeGreaterThanOrEqual(chainNow + v + o);
    expect(deadlines.open).toBeLessThan(chainNow + v + o + 60);
    expect(deadlines.fill).toBe(deadlines.open + f);

    const input = 1_000_000n;
    const output = 990_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    // Before, openDeadline was an hour in the input chain's past: the deposit failed every time.
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    await fillSwap(h, lpWallet, swap, output);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 30_000);
  });

  it('an output chain further ahead: fillDeadline follows the later clock, openDeadline the input chain', async () => {
    await increaseChainTime(h, h.chainB, 3 * HOUR);
    const inputNow = await blockTime(h.chainA);
    const outputNow = await blockTime(h.chainB);
    expect(outputNow).toBeGreaterThan(inputNow + HOUR);
    const { quoteValiditySeconds: v, openWindowSeconds: o, fillWindowSeconds: f } = h.config;
    const deadlines = await waitForDeadlines((d) => d.fill >= outputNow + v + o + f);
    expect(deadlines.fill).toBeGreaterThanOrEqual(outputNow + v + o + f);
    expect(deadlines.fill).toBeLessThan(outputNow + v + o + f + 60);
    expect(deadlines.open).toBeLessThan(inputNow + v + o + 60);
    expect(deadlines.open).toBeGreaterThanOrEqual(inputNow + v + o);
  });
});
