import { createPublicClient, type Hex, http, parseAbiItem } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS, DEVNET_SETTLE_GRACE_SECONDS } from '../src/devnet/devnet.ts';
import type { OrderTypedData } from '../src/domain/order-typed-data.ts';
import {
  approveEscrow,
  balanceOf,
  catchUpClock,
  depositAs,
  fillSwap,
  refundAsOfferer,
  setChainTime,
  workerPasses,
} from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const settled = parseAbiItem('event Settled(bytes32 indexed orderHash, address indexed filler)');

/** The input chain's block time of the escrow's Settled event for `orderHash`. */
async function settledAt(h: Harness, orderHash: Hex): Promise<bigint> {
  const chain = h.registry.chain(h.chainA)!;
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  const [log] = await client.getLogs({
    address: chain.contracts.escrow,
    event: settled,
    args: { orderHash },
    fromBlock: 0n,
    toBlock: 'latest',
  });
  if (!log) throw new Error(`no Settled event for ${orderHash}`);
  return (await client.getBlock({ blockHash: log.blockHash })).timestamp;
}
const GRACE = BigInt(DEVNET_SETTLE_GRACE_SECONDS);

/**
 * What happens on chain that Ferry did not do itself: the offerer approving late, a deposit or refund sent
 * by someone else, and the two chains' clocks disagreeing at the fill deadline.
 */
describe('settlement follows the chain', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  const statusOf = async (orderId: string) =>
    (await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: mm.apiKey })).body.data.status;
  const kindsOf = async (orderId: string) =>
    (
      await h.app.database.db
        .selectFrom('chain_actions')
        .select('kind')
        .where('order_id', '=', orderId)
        .orderBy('created_at')
        .execute()
    ).map((a) => a.kind);
  const fill = (swap: { typedData: OrderTypedData }, amount: bigint) => fillSwap(h, lpWallet, swap, amount);

  it('an approval sent after the swap is waited for: the order deposits and completes', async () => {
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 0n);
    const swap = await executeSwap(h, { mm, lp }, { input: 1_000_000n, output: 990_000n });
    // The worker runs in the background all along; the approval lands 5 s after the swap.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(await statusOf(swap.orderId)).toBe('created');
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 1_000_000n);
    const deposited = await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    expect(deposited.details.srcChainTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    await fill(swap, 990_000n);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'completed');
    // The filler proved its own fill (fillAndProve): Ferry sent only the deposit.
    expect(await kindsOf(swap.orderId)).toEqual(['deposit']);
  });

  it('a deposit sent by someone else (the LP, with the offerer’s signature) is followed like Ferry’s own', async () => {
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 0n);
    const swap = await executeSwap(h, { mm, lp }, { input: 1_000_000n, output: 990_000n });
    await h.app.worker!.stop();
    try {
      await workerPasses(h, 2);
      expect(await statusOf(swap.orderId)).toBe('created');
      await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 1_000_000n);
      await depositAs(h, lpWallet, swap.typedData, swap.signature);
    } finally {
      h.app.worker!.start();
    }
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    await fill(swap, 990_000n);
    await waitForStatus(h, mm.apiKey, swap.orderId, 'completed');
    // Ferry sent nothing: the deposit was the LP's, the proof the filler's own (fillAndProve).
    expect(await kindsOf(swap.orderId)).toEqual([]);
  });

  it('the deadline race: input chain past fillDeadline, output chain not; refund stays shut, the LP is paid', async () => {
    const input = 1_000_000n;
    const output = 990_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    const before = {
      offerer: await balanceOf(h, h.chainA, h.usdcA, h.offerer.address),
      lpInput: await balanceOf(h, h.chainA, h.usdcA, lpWallet.address),
    };
    await h.app.worker!.stop();
    try {
      await setChainTime(h, h.chainA, swap.fillDeadline + 1n);
      // Within the grace the offerer cannot take the input back, and Ferry does not try.
      await expect(refundAsOfferer(h, swap)).rejects.toThrow(/RefundNotOpen/);
      await workerPasses(h, 2);
      expect(await statusOf(swap.orderId)).toBe('deposited');
      // The output chain is still before fillDeadline: the LP's fill is on time.
      await fill(swap, output);
    } finally {
      h.app.worker!.start();
    }
    await waitForStatus(h, mm.apiKey, swap.orderId, 'completed');
    expect(await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)).toBe(before.lpInput + input);
    // The grace is the time the proof has to arrive in, on the input chain's clock: the LayerZero message
    // was delivered before fillDeadline + settleGrace, so the offerer's refund never opened while it travelled.
    expect(await settledAt(h, swap.orderHash)).toBeLessThanOrEqual(swap.fillDeadline + GRACE);
    // The filler proved its own fill (fillAndProve): Ferry sent only the deposit.
    expect(await kindsOf(swap.orderId)).toEqual(['deposit']);
    // After the grace the refund is gone for good: the escrow paid the LP.
    await setChainTime(h, h.chainA, swap.fillDeadline + GRACE + 2n);
    await expect(refundAsOfferer(h, swap)).rejects.toThrow(/NotActive/);
    expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(before.offerer);
    await catchUpClock(h);
  });

  it('a refund sent by the offerer after the grace is followed on the next pass', async () => {
    const input = 1_000_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    const before = await balanceOf(h, h.chainA, h.usdcA, h.offerer.address);
    // Only the input chain moves on: Ferry itself would not refund yet (the output chain still takes fills),
    // so `refunded` can only come from reading the escrow. The worker keeps running throughout.
    await setChainTime(h, h.chainA, swap.fillDeadline + GRACE + 1n);
    await refundAsOfferer(h, swap);
    const refunded = await waitForStatus(h, mm.apiKey, swap.orderId, 'refunded');
    expect(refunded.failureReason).toMatch(/refunded to the offerer on chain/);
    expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(before + input);
    expect(await kindsOf(swap.orderId)).toEqual(['deposit']);
    await catchUpClock(h);
  });
});
