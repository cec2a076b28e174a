import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import {
  buildOrderTypedData,
  hashOrderTypedData,
  type OrderTerms,
  orderTermsFrom,
} from '../src/domain/order-typed-data.ts';
import {
  approveEscrow,
  balanceOf,
  fillOrder,
  mineBlocks,
  minedIn,
  reorgChain,
} from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

/**
 * Reorgs on the output chain, whose registry entry asks for 3 confirmations: a fill counts only once its block has
 * two more on top. The worker's passes run by hand while the chain is rearranged, so every assertion is made at
 * a known chain state.
 */

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);

describe('a reorg that removes a fill', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness(
      { worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      {
        registry: (file) => ({
          chains: file.chains.map((chain, i) => (i === 1 ? { ...chain, confirmations: 3 } : chain)),
        }),
      },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  const status = async (orderId: string) =>
    (await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: mm.apiKey })).body.data.status as string;
  const actionKinds = async (orderId: string) =>
    (
      await h.app.database.db
        .selectFrom('chain_actions')
        .select('kind')
        .where('order_id', '=', orderId)
        .execute()
    ).map((a) => a.kind);
  const passes = async (n: number) => {
    for (let i = 0; i < n; i++) await h.app.worker!.runOnce();
  };

  it('nothing is attested while the fill is not canonical at depth; the re-sent fill completes the order', async () => {
    expect(h.registry.chain(h.chainB)?.confirmations).toBe(3);
    const input = 1_500_000n;
    const output = 1_480_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    await h.app.worker!.stop();
    const recipientBefore = await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address);
    const fill = {
      chain: h.chainB,
      order: orderTermsFrom(swap.typedData),
      escrow: swap.typedData.domain.verifyingContract,
    };

    // The fill lands, and is seen at depth 1, then 2: not yet enough.
    const firstFill = await fillOrder(h, lpWallet, fill);
    await passes(2);
    await mineBlocks(h, h.chainB, 1);
    await passes(2);
    expect(await status(swap.orderId)).toBe('deposited');
    expect(await actionKinds(swap.orderId)).toEqual(['deposit']);

    // The two newest blocks, the fill's among them, leave the chain; the chain then grows well past the depth
    // the fill would have had.
    await reorgChain(h, h.chainB, 2);
    expect(await minedIn(h, h.chainB, firstFill)).toBeNull();
    expect(await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address)).toBe(recipientBefore);
    await mineBlocks(h, h.chainB, 4);
    await passes(3);
    expect(await status(swap.orderId)).toBe('deposited');
    expect(await actionKinds(swap.orderId)).toEqual(['deposit']);
    const indexed = await h.app.database.db
      .selectFrom('chain_fills')
      .select('tx_hash')
      .where('order_hash', '=', swap.orderHash.toLowerCase())
      .execute();
    expect(indexed).toEqual([]);

    // The liquidity provider fills again. Below depth 3 nothing moves; at depth 3 the order settles on that fill.
    const secondFill = await fillOrder(h, lpWallet, fill);
    expect(secondFill).not.toBe(firstFill);
    await passes(2);
    expect(await status(swap.orderId)).toBe('deposited');
    await mineBlocks(h, h.chainB, 2);
    h.app.worker!.start();
    const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed');
    expect(completed.details.dstChainTxHash).toBe(secondFill);
    expect(await minedIn(h, h.chainB, secondFill)).not.toBeNull();
    expect(await balanceOf(h, h.chainB, h.usdcB, h.otherWallet.address)).toBe(recipientBefore + output);
    // The re-sent fill proved itself (fillAndProve): Ferry sent only the deposit, nothing for the removed fill.
    expect((await actionKinds(swap.orderId)).sort()).toEqual(['deposit']);
  });

  it('a fill already indexed is forgotten when a reorg deeper than the confirmations removes its block', async () => {
    // Chain A counts a fill at depth 1. A fill of an order no escrow holds is indexed at once, then reorged away.
    const chainA = h.registry.chain(h.chainA)!;
    const order: OrderTerms = {
      offerer: h.offerer.address,
      recipient: h.otherWallet.address,
      inputToken: h.usdcB,
      outputToken: h.usdcA,
      inputAmount: 1n,
      outputAmount: 1n,
      inputChainId: BigInt(h.registry.chain(h.chainB)!.chainId),
      outputChainId: BigInt(chainA.chainId),
      filler: lpWallet.address,
      nonce: BigInt(Date.now()),
      openDeadline: 2n ** 40n,
      fillDeadline: 2n ** 40n,
      protocolFee: 0n,
      exclusivityDeadline: 2n ** 40n,
    };
    const escrow = h.registry.chain(h.chainB)!.contracts.escrow;
    const orderHash = hashOrderTypedData(buildOrderTypedData(order, escrow));
    const indexedFills = () =>
      h.app.database.db
        .selectFrom('chain_fills')
        .select('tx_hash')
        .where('chain', '=', h.chainA)
        .where('order_hash', '=', orderHash)
        .execute();
    await h.app.worker!.stop();
    try {
      const tx = await fillOrder(h, lpWallet, { chain: h.chainA, order, escrow, prove: false });
      await passes(1);
      expect((await indexedFills()).map((f) => f.tx_hash)).toEqual([tx]);

      await reorgChain(h, h.chainA, 2);
      await mineBlocks(h, h.chainA, 1);
      await passes(1);
      expect(await minedIn(h, h.chainA, tx)).toBeNull();
      expect(await indexedFills()).toEqual([]);
    } finally {
      h.app.worker!.start();
    }
  });
});
