import { type Address, erc20Abi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { lzChainClient, writeLz } from '../src/chains/layerzero/lz-chain-client.ts';
import { readEscrowCredits, withdrawEscrowCredit } from '../src/chains/settlement/escrow-credits.ts';
import { ANVIL_KEYS, DEVNET_DEPLOYER_KEY } from '../src/devnet/devnet.ts';
import { usdcAbi } from '../src/devnet/usdc-devnet.ts';
import { orderTermsFrom } from '../src/domain/order-typed-data.ts';
import {
  approveEscrow,
  balanceOf,
  catchUpClock,
  fillSwap,
  increaseChainTime,
  refundAsOfferer,
  workerPasses,
} from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';
import { usdcAdmin } from './support/usdc-admin.ts';

const lpKey = ANVIL_KEYS[4];
const lpWallet = privateKeyToAccount(lpKey);
/** FerryEscrow's orderStatus values. */
const ESCROW_SETTLED = 2;
const ESCROW_REFUNDED = 3;

/**
 * The devnets' USDC is Circle's FiatTokenV2_2, so its blacklist bites as on a real chain: a fill to a blacklisted
 * recipient reverts and the order refunds; a refund to a blacklisted offerer, or a settlement while USDC is paused,
 * still changes the order on chain (Refunded, Settled) and the escrow keeps the refused payout for its account,
 * who withdraws it once the token lets it through. Runs on SQLite, or on PostgreSQL with FERRY_TEST_PG.
 */
describe("Circle's USDC blacklist on the devnets", () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness({ worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  const rpcOf = (chain: string) => h.devnets.chains.find((c) => c.name === chain)!.rpcUrl;
  const client = (chain: string, key: `0x${string}`) =>
    lzChainClient(rpcOf(chain), h.registry.chain(chain)!.chainId, key);
  const blacklister = (chain: string, functionName: 'blacklist' | 'unBlacklist', who: Address) =>
    usdcAdmin(h, chain, { functionName, who });
  /** What chain A's escrow owes `account` in USDC, as `ferry fees --account` reads it. */
  const creditOnA = async (account: Address) =>
    (await readEscrowCredits(h.registry, account)).find((c) => c.chain === h.chainA && c.token === h.usdcA)!;
  const owedOnA = async (account: Address) => (await creditOnA(account)).owed;
  const lpCredit = () => creditOnA(lpWallet.address);
  const escrowStatus = (orderHash: `0x${string}`) =>
    client(h.chainA, DEVNET_DEPLOYER_KEY).publicClient.readContract({
      address: h.registry.chain(h.chainA)!.contracts.escrow,
      abi: loadArtifact('FerryEscrow').abi,
      functionName: 'orderStatus',
      args: [orderHash],
    });
  /** A swap of `input` USDC (for 99 %) from the offerer, deposited by Ferry, with Ferry's clock on the chains'. */
  async function depositedSwap(input: bigint) {
    await catchUpClock(h);
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output: (input * 99n) / 100n });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    return swap;
  }
  const orderOf = async (orderId: string) =>
    (await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: mm.apiKey })).body.data;
  const refundsOf = async (orderId: string) =>
    (
      await h.app.database.db
        .selectFrom('chain_actions')
        .select('seq')
        .where('order_id', '=', orderId)
        .where('kind', '=', 'refund')
        .execute()
    ).length;
  it("a fill to a blacklisted recipient reverts on the output chain; the order refunds the offerer's input", async () => {
    const input = 1_000_000n;
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output: 990_000n });
    await waitForStatus(h, mm.apiKey, swap.orderId, 'deposited');
    const afterDeposit = await balanceOf(h, h.chainA, h.usdcA, h.offerer.address);
    const recipient = h.otherWallet.address;
    const lpBefore = await balanceOf(h, h.chainB, h.usdcB, lpWallet.address);
    await blacklister(h.chainB, 'blacklist', recipient);
    try {
      // The LP fills anyway, with its own gas limit so the transaction is mined: it reverts on chain B.
      const lpB = client(h.chainB, lpKey);
      const fill = h.registry.chain(h.chainB)!.contracts.fill;
      const order = orderTermsFrom(swap.typedData);
      await writeLz(lpB, {
        address: h.usdcB,
        abi: erc20Abi,
        functionName: 'approve',
        args: [fill, order.outputAmount],
      });
      const hash = await lpB.wallet.writeContract({
        account: lpB.wallet.account!,
        chain: lpB.wallet.chain,
        address: fill,
        abi: loadArtifact('FerryApp').abi,
        functionName: 'fill',
        args: [order, swap.typedData.domain.verifyingContract],
        gas: 1_000_000n,
      });
      const receipt = await lpB.publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('reverted');
      // Circle's token refuses it on simulation too, naming the blacklist.
      await expect(
        lpB.publicClient.simulateContract({
          account: lpB.account,
          address: h.usdcB,
          abi: usdcAbi,
          functionName: 'transfer',
          args: [recipient, 1n],
        }),
      ).rejects.toThrow(/Blacklistable: account is blacklisted/);
      expect(await balanceOf(h, h.chainB, h.usdcB, lpWallet.address)).toBe(lpBefore);

      // Past fillDeadline and the settle grace on both chains: Ferry refunds the offerer.
      await increaseChainTime(h, h.chainA, 3 * 3600);
      await increaseChainTime(h, h.chainB, 3 * 3600);
      const refunded = await waitForStatus(h, mm.apiKey, swap.orderId, 'refunded');
      expect(refunded.failureReason).toMatch(/not filled before the fill deadline/);
      expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(afterDeposit + input);
      expect(await refundsOf(swap.orderId)).toBe(1);
    } finally {
      await blacklister(h.chainB, 'unBlacklist', recipient);
    }
  });

  it('a refund to a blacklisted offerer marks the order refunded on chain with the input credited to the offerer, who withdraws it once cleared', async () => {
    const input = 1_000_000n;
    const swap = await depositedSwap(input);
    const afterDeposit = await balanceOf(h, h.chainA, h.usdcA, h.offerer.address);
    // Nothing before this test leaves the offerer a credit (so on a build without credits it fails on the refund).
    const owedBefore = 0n;
    await usdcAdmin(h, h.chainA, { functionName: 'blacklist', who: h.offerer.address });
    let cleared = false;
    try {
      await increaseChainTime(h, h.chainA, 3 * 3600);
      await increaseChainTime(h, h.chainB, 3 * 3600);
      // The refund no longer depends on the token: the escrow keeps the refused transfer for the offerer.
      const refunded = await waitForStatus(h, mm.apiKey, swap.orderId, 'refunded', 90_000);
      expect(refunded.failureReason).toMatch(/not filled before the fill deadline/);
      expect(await refundsOf(swap.orderId)).toBe(1);
      expect(await escrowStatus(swap.orderHash)).toBe(ESCROW_REFUNDED);
      expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(afterDeposit);
      expect((await owedOnA(h.offerer.address)) - owedBefore).toBe(input);

      await usdcAdmin(h, h.chainA, { functionName: 'unBlacklist', who: h.offerer.address });
      cleared = true;
      const owed = await owedOnA(h.offerer.address);
      await withdrawEscrowCredit(
        h.registry,
        (await readEscrowCredits(h.registry, h.offerer.address)).find(
          (c) => c.chain === h.chainA && c.token === h.usdcA,
        )!,
        DEVNET_DEPLOYER_KEY,
      );
      expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(afterDeposit + owed);
      expect(await owedOnA(h.offerer.address)).toBe(0n);
    } finally {
      if (!cleared) await usdcAdmin(h, h.chainA, { functionName: 'unBlacklist', who: h.offerer.address });
    }
  }, 120_000);

  it('USDC paused across fillDeadline + settleGrace: the proof delivered while paused settles the order with the filler credited; no refund after it; the filler withdraws after unpause', async () => {
    const input = 1_000_000n;
    const swap = await depositedSwap(input);
    const lpBefore = await balanceOf(h, h.chainA, h.usdcA, lpWallet.address);
    // Nothing before this test leaves the LP a credit (so on a build without credits it fails on the settlement).
    const owedBefore = 0n;
    await usdcAdmin(h, h.chainA, { functionName: 'pause' });
    let unpaused = false;
    try {
      // fillAndProve on chain B (not paused); on chain A, FerryApp's lzReceive settles the escrow although the
      // token refuses the payout: the filler is credited and the order completes.
      await fillSwap(h, lpWallet, swap);
      const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
      expect(completed.details.settlement.method).toBe('layerzero');
      expect(completed.details.settlement.status).toBe('delivered');
      expect(await escrowStatus(swap.orderHash)).toBe(ESCROW_SETTLED);
      expect((await owedOnA(lpWallet.address)) - owedBefore).toBe(input);
      expect(await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)).toBe(lpBefore);

      // Still paused, past fillDeadline + settleGrace: neither Ferry nor the offerer can refund a proven fill.
      await increaseChainTime(h, h.chainA, 3 * 3600);
      await increaseChainTime(h, h.chainB, 3 * 3600);
      await workerPasses(h, 2);
      expect(await refundsOf(swap.orderId)).toBe(0);
      await expect(refundAsOfferer(h, swap)).rejects.toThrow(/NotActive/);
      expect((await orderOf(swap.orderId)).status).toBe('completed');
      // The credit cannot be paid while the token is paused, and stays.
      await expect(withdrawEscrowCredit(h.registry, await lpCredit(), DEVNET_DEPLOYER_KEY)).rejects.toThrow();

      await usdcAdmin(h, h.chainA, { functionName: 'unpause' });
      unpaused = true;
      const owed = await owedOnA(lpWallet.address);
      await withdrawEscrowCredit(h.registry, await lpCredit(), DEVNET_DEPLOYER_KEY);
      expect(await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)).toBe(lpBefore + owed);
      expect(await owedOnA(lpWallet.address)).toBe(0n);
    } finally {
      if (!unpaused) await usdcAdmin(h, h.chainA, { functionName: 'unpause' });
    }
  }, 120_000);
});
