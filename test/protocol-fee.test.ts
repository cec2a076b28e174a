import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS, DEVNET_FEE_RECIPIENT } from '../src/chains/devnet.ts';
import { approveEscrow, balanceOf, fillSwap, increaseChainTime } from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);

/** PROTOCOL_FEE_BPS=10 on real chains: the typed data carries the fee, the escrow splits it at settlement only. */
describe('protocol fee (10 bps)', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  const waitFor = (orderId: string, status: string) => waitForStatus(h, mm.apiKey, orderId, status, 30_000);
  const feeRecipientBalance = () => balanceOf(h, h.chainA, h.usdcA, DEVNET_FEE_RECIPIENT);

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      protocolFeeBps: 10,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the fee recipient receives exactly 10 bps of the input at settlement and the filler the rest', async () => {
    const input = 12_345_678n;
    const fee = (input * 10n) / 10_000n;
    const output = 12_000_000n;
    const before = {
      fees: await feeRecipientBalance(),
      lp: await balanceOf(h, h.chainA, h.usdcA, lpWallet.address),
    };
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    expect(swap.typedData.message.protocolFee).toBe(fee.toString());
    expect(swap.typedData.types.Order.at(-1)).toEqual({ name: 'protocolFee', type: 'uint256' });

    await waitFor(swap.orderId, 'deposited');
    await fillSwap(h, lpWallet, swap, output);
    const completed = await waitFor(swap.orderId, 'completed');
    expect(completed.details.protocolFee).toBe(fee.toString());

    expect((await feeRecipientBalance()) - before.fees).toBe(fee);
    expect((await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)) - before.lp).toBe(input - fee);
    const pub = await h.http('GET', `/api/public/orders/${swap.orderId}`);
    expect(pub.body.data.order.protocolFee).toBe(fee.toString());
    const chains = await h.http('GET', '/api/public/chains');
    expect(chains.body.data.protocolFeeBps).toBe(10);
    const stats = await h.http('GET', '/api/public/stats');
    const day = stats.body.data.volume.find((row: { inputToken: string }) => row.inputToken === h.usdcA);
    expect(BigInt(day.protocolFee)).toBeGreaterThanOrEqual(fee);
  });

  it('a refund returns the whole input: no fee is taken', async () => {
    const input = 5_000_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output: 4_900_000n });
    expect(swap.typedData.message.protocolFee).toBe('5000');
    await waitFor(swap.orderId, 'deposited');
    const offerer = await balanceOf(h, h.chainA, h.usdcA, h.offerer.address);
    const fees = await feeRecipientBalance();
    await increaseChainTime(h, h.chainB, 3 * 3600);
    await increaseChainTime(h, h.chainA, 3 * 3600);
    await waitFor(swap.orderId, 'refunded');
    expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(offerer + input);
    expect(await feeRecipientBalance()).toBe(fees);
  });
});
