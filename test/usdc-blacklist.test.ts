import { type Address, erc20Abi, getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS, DEVNET_DEPLOYER_KEY } from '../src/chains/devnet.ts';
import {
  type LayerZeroDevnetError,
  lzChainClient,
  writeLz,
} from '../src/chains/layerzero/lz-chain-client.ts';
import { usdcAbi } from '../src/chains/usdc-devnet.ts';
import { orderTermsFrom } from '../src/domain/order-typed-data.ts';
import {
  approveEscrow,
  balanceOf,
  catchUpClock,
  fillSwap,
  increaseChainTime,
} from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { sleep, until } from './support/polling.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';

const lpKey = ANVIL_KEYS[4];
const lpWallet = privateKeyToAccount(lpKey);
/** FerryEscrow's orderStatus values. */
const ESCROW_ACTIVE = 1;
const ESCROW_SETTLED = 2;

/**
 * The devnets' USDC is Circle's FiatTokenV2_2, so its blacklist bites as on a real chain: a fill to a blacklisted
 * recipient reverts and the order refunds; a refund to a blacklisted offerer would revert, so Ferry sends nothing,
 * says why on the order and backs off until the offerer is cleared; a paused USDC holds the LayerZero delivery
 * that settles the escrow until it is unpaused. Runs on SQLite, or on PostgreSQL with FERRY_TEST_PG.
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
  /** The devnet deployer is USDC's blacklister on both devnets. */
  const blacklister = (chain: string, functionName: 'blacklist' | 'unBlacklist', who: Address) =>
    writeLz(client(chain, DEVNET_DEPLOYER_KEY), {
      address: h.registry.chain(chain)!.tokens.find((t) => t.symbol === 'USDC')!.address,
      abi: usdcAbi,
      functionName,
      args: [who],
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
  const attemptsOf = async (orderId: string) =>
    Number(
      (
        await h.app.database.db
          .selectFrom('orders')
          .select('attempts')
          .where('id', '=', orderId)
          .executeTakeFirstOrThrow()
      ).attempts,
    );

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

  it('a refund to a blacklisted offerer is not sent while it would revert: the reason is on the order, counted once, and the refund goes once the offerer is cleared', async () => {
    const input = 1_000_000n;
    const swap = await depositedSwap(input);
    const afterDeposit = await balanceOf(h, h.chainA, h.usdcA, h.offerer.address);
    await blacklister(h.chainA, 'blacklist', h.offerer.address);
    let cleared = false;
    try {
      await increaseChainTime(h, h.chainA, 3 * 3600);
      await increaseChainTime(h, h.chainB, 3 * 3600);
      // The escrow's SafeTransfer names the token whose transfer failed (Circle's reason is not bubbled).
      const reason = `refund would revert (TransferFailed(${getAddress(h.usdcA)})); retrying with backoff`;
      const surfaced = await until('the refund revert on the order', async () => {
        const order = await orderOf(swap.orderId);
        return order.failureReason === reason ? order : null;
      });
      expect(surfaced.status).toBe('deposited');

      // The worker keeps polling every 50 ms; the order backs off instead: a few tries, no transaction at all.
      const tries = await attemptsOf(swap.orderId);
      await until('the worker to try the order again', async () => (await attemptsOf(swap.orderId)) > tries);
      await sleep(2_000);
      expect((await attemptsOf(swap.orderId)) - tries).toBeLessThanOrEqual(6);
      expect(await refundsOf(swap.orderId)).toBe(0);
      expect((await orderOf(swap.orderId)).failureReason).toBe(reason);
      const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(`ferry_settlement_reverts_total\\{chain="${h.chainA}",kind="refund"\\} 1\\n`),
      );

      await blacklister(h.chainA, 'unBlacklist', h.offerer.address);
      cleared = true;
      const refunded = await waitForStatus(h, mm.apiKey, swap.orderId, 'refunded', 90_000);
      expect(refunded.failureReason).toMatch(/not filled before the fill deadline/);
      expect(await refundsOf(swap.orderId)).toBe(1);
      expect(await balanceOf(h, h.chainA, h.usdcA, h.offerer.address)).toBe(afterDeposit + input);
    } finally {
      if (!cleared) await blacklister(h.chainA, 'unBlacklist', h.offerer.address);
    }
  }, 120_000);

  it("a proof message delivered while the input chain's USDC is paused waits; after unpause the order completes", async () => {
    const input = 1_000_000n;
    const swap = await depositedSwap(input);
    const pauser = (functionName: 'pause' | 'unpause') =>
      writeLz(client(h.chainA, DEVNET_DEPLOYER_KEY), {
        address: h.usdcA,
        abi: usdcAbi,
        functionName,
        args: [],
      });
    await pauser('pause');
    let unpaused = false;
    try {
      // fillAndProve on chain B (not paused); on chain A, FerryApp's lzReceive settles the escrow, which the paused
      // token refuses: the relay's deliveries fail (it tries again and again), the escrow stays Active.
      await h.devnets.relay?.stop();
      const failures: LayerZeroDevnetError[] = [];
      h.devnets.startRelay({
        pollIntervalMs: 50,
        retryBaseMs: 100,
        retryMaxMs: 400,
        onError: (e) => failures.push(e),
      });
      await fillSwap(h, lpWallet, swap);
      await until('the relay to fail to deliver twice', async () => failures.length >= 2);
      const verified = await until('the proof message verified on chain A', async () => {
        const order = await orderOf(swap.orderId);
        return order.status === 'filled' && order.details.settlement?.status === 'verified' ? order : null;
      });
      expect(verified.details.settlement.method).toBe('layerzero');
      const escrowStatus = () =>
        client(h.chainA, DEVNET_DEPLOYER_KEY).publicClient.readContract({
          address: h.registry.chain(h.chainA)!.contracts.escrow,
          abi: loadArtifact('FerryEscrow').abi,
          functionName: 'orderStatus',
          args: [swap.orderHash],
        });
      expect(await escrowStatus()).toBe(ESCROW_ACTIVE);

      await pauser('unpause');
      unpaused = true;
      const completed = await waitForStatus(h, mm.apiKey, swap.orderId, 'completed', 90_000);
      expect(completed.details.settlement.status).toBe('delivered');
      expect(await escrowStatus()).toBe(ESCROW_SETTLED);
    } finally {
      if (!unpaused) await pauser('unpause');
    }
  }, 120_000);
});
