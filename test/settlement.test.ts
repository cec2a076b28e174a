import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { anvilKnobs } from './support/anvil-knobs.ts';
import {
  approveEscrow,
  balanceOf,
  catchUpClock,
  depositAs,
  fillSwap,
  increaseChainTime,
  mineBlocks,
  refundAsOfferer,
  setChainTime,
  workerPasses,
} from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);

/**
 * The same cases on instant devnets (a block per transaction) and on blocks every second, where every transaction
 * of Ferry, the LP and the offerer waits for the next block.
 */
describe.each([
  { blockTime: 0, blocks: 'instant blocks' },
  { blockTime: 1, blocks: '1-second blocks' },
])('settlement on two anvil chains, $blocks', ({ blockTime }) => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  // Each step of a swap waits for a block or two on 1-second blocks.
  const waitFor = (orderId: string, status: string) =>
    waitForStatus(h, mm.apiKey, orderId, status, blockTime ? 40_000 : 20_000);

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    if (blockTime > 0) {
      for (const chain of h.devnets.chains) await anvilKnobs(chain.rpcUrl).blockTime(blockTime);
    }
  });
  afterAll(async () => {
    await h?.close();
  });
  const statusOf = async (orderId: string) =>
    (await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: mm.apiKey })).body.data.status;

  it('happy path: the balances prove the swap', async () => {
    const input = 2_500_000n;
    const output = 2_450_000n;
    const escrow = h.registry.chain(h.chainA)!.contracts.escrow;
    const before = {
      offerer: await balanceOf(h, h.chainA, h.usdcA, h.offerer.address),
      lpInput: await balanceOf(h, h.chainA, h.usdcA, lpWallet.address),
      lpOutput: await balanceOf(h, h.chainB, h.usdcB, lpWallet.address),
      recipient: await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address),
      escrow: await balanceOf(h, h.chainA, h.usdcA, escrow),
    };
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });

    const deposited = await waitFor(swap.orderId, 'deposited');
    expect(deposited.details.srcChainTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balanceOf(h, h.chainA, h.usdcA, escrow)).toBe(before.escrow + input);

    const fillTx = await fillSwap(h, lpWallet, swap, output);
    const completed = await waitFor(swap.orderId, 'completed');
    expect(completed.details.dstChainTxHash).toBe(fillTx);
    expect(completed.details.settlementTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(completed.completedAt).not.toBeNull();

    expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(before.offerer - input);
    expect(await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address)).toBe(before.recipient + output);
    const lpNet =
      (await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)) -
      before.lpInput +
      ((await balanceOf(h, h.chainB, h.usdcB, lpWallet.address)) - before.lpOutput);
    expect(lpNet).toBe(input - output);
    expect(await balanceOf(h, h.chainA, h.usdcA, escrow)).toBe(before.escrow);

    const pub = await h.http('GET', '/api/public/orders');
    const row = pub.body.data.orders.find((o: { id: string }) => o.id === swap.orderId);
    expect(row).toMatchObject({ status: 'completed', dstChainTxHash: fillTx });
  });

  it('failure path: without an allowance the order waits until openDeadline, then fails and nothing moves', async () => {
    const input = 3_000_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, 0n);
    const before = await balanceOf(h, h.chainA, h.usdcA, h.offerer.address);
    const swap = await executeSwap(h, { mm, lp }, { input, output: 2_900_000n });
    await h.app.worker!.stop();
    try {
      // The offerer's approval may still be in flight: the worker retries instead of failing at once.
      await workerPasses(h, 3);
      expect(await statusOf(swap.orderId)).toBe('created');
      await setChainTime(h, h.chainA, swap.openDeadline + 1n);
    } finally {
      h.app.worker!.start();
    }
    const failed = await waitFor(swap.orderId, 'failed');
    expect(failed.failureReason).toMatch(/INSUFFICIENT_ALLOWANCE.*openDeadline/);
    expect(failed.details.srcChainTxHash).toBeNull();
    expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(before);
    // `failed` is final on chain too: nobody can deposit the order any more.
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    await expect(depositAs(h, lpWallet, swap.typedData, swap.signature)).rejects.toThrow(/OrderExpired/);
    await catchUpClock(h);
  });

  // Last: it moves chain A's clock hours ahead, which later deposits (openDeadline) would notice.
  it('refund path: no fill before the deadline (and the grace) returns the input to the offerer', async () => {
    const input = 1_000_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });
    await waitFor(swap.orderId, 'deposited');
    const afterDeposit = await balanceOf(h, h.chainA, h.usdcA, h.offerer.address);

    // Only the input chain past the deadline: the output chain's fill contract would still take a fill, so no
    // refund yet (the worker passes run here deterministically, with the background loop stopped).
    await h.app.worker!.stop();
    await increaseChainTime(h, h.chainA, 3 * 3600);
    await workerPasses(h, 3);
    expect(await statusOf(swap.orderId)).toBe('deposited');
    await increaseChainTime(h, h.chainB, 3 * 3600);
    h.app.worker!.start();
    const refunded = await waitFor(swap.orderId, 'refunded');
    expect(refunded.details.settlementTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(refunded.failureReason).toMatch(/not filled before the fill deadline/);
    expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(afterDeposit + input);
  });

  it('an escrow refunded by the offerer itself is followed, without a transaction of Ferry', async () => {
    // The chains were moved 3 h ahead above; Ferry's clock follows so the new order's deadlines lie ahead of them.
    await catchUpClock(h);
    const input = 1_000_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });
    await waitFor(swap.orderId, 'deposited');
    await h.app.worker!.stop();
    try {
      // Both chains move past this order's fill deadline; the offerer refunds on chain before Ferry does.
      await increaseChainTime(h, h.chainA, 3 * 3600);
      await increaseChainTime(h, h.chainB, 3 * 3600);
      await refundAsOfferer(h, swap);
      await h.app.worker!.runOnce();
    } finally {
      h.app.worker!.start();
    }
    const refunded = await waitFor(swap.orderId, 'refunded');
    expect(refunded.failureReason).toMatch(/refunded to the offerer on chain/);
    const actions = await h.app.database.db
      .selectFrom('chain_actions')
      .select('kind')
      .where('order_id', '=', swap.orderId)
      .execute();
    expect(actions.map((a) => a.kind)).toEqual(['deposit']);
  });
  it("a deposit whose nonce went outside Ferry's records is not sent again; the escrow on chain is followed", async () => {
    await catchUpClock(h);
    const input = 1_000_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    await h.app.worker!.stop();
    try {
      const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });
      // What the transaction client writes down when another transaction took the action's nonce.
      const now = Date.now();
      const actionId = `ca_conflict_${swap.orderId}`;
      await h.app.database.db
        .insertInto('chain_actions')
        .values({
          id: actionId,
          order_id: swap.orderId,
          kind: 'deposit',
          chain: h.chainA,
          from_address: h.offerer.address,
          nonce: 0,
          tx_hash: `0x${'ab'.repeat(32)}`,
          raw_tx: '0x',
          status: 'nonce-conflict',
          created_at: now,
          updated_at: now,
          waiting_since: null,
          fee_capped_at: null,
        })
        .execute();
      // The escrow gets its deposit from someone else (here the offerer itself).
      await depositAs(h, h.offerer, swap.typedData, swap.signature);
      await mineBlocks(h, h.chainA, 5);
      await workerPasses(h, 3);
      expect(await statusOf(swap.orderId)).toBe('deposited');
      const actions = await h.app.database.db
        .selectFrom('chain_actions')
        .select(['kind', 'status'])
        .where('order_id', '=', swap.orderId)
        .execute();
      expect(actions).toEqual([{ kind: 'deposit', status: 'nonce-conflict' }]);
      const txs = await h.app.database.db
        .selectFrom('chain_action_txs')
        .select('tx_hash')
        .where('action_id', '=', actionId)
        .execute();
      expect(txs).toEqual([]);
    } finally {
      h.app.worker!.start();
    }
  });
});
