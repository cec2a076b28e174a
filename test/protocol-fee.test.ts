import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { readEscrowCredits } from '../src/chains/settlement/escrow-credits.ts';
import { publicClientFor } from '../src/chains/viem-client.ts';
import { ANVIL_KEYS, DEVNET_FEE_RECIPIENT } from '../src/devnet/devnet.ts';
import {
  approveEscrow,
  balanceOf,
  catchUpClock,
  fillSwap,
  increaseChainTime,
  workerPasses,
} from './support/chain-actors.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { executeSwap, waitForStatus } from './support/swap-steps.ts';
import { usdcAdmin } from './support/usdc-admin.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
/** Any funded key may pay a withdrawal's gas: here anvil's account 3, neither the fee recipient nor a party. */
const gasPayerKey: string = ANVIL_KEYS[3];
const ferryBin = fileURLToPath(new URL('../bin/ferry.js', import.meta.url));

/** `ferry fees …` as the operator runs it (the compiled CLI in a child process). */
function ferryFees(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [ferryBin, 'fees', ...args],
      { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/**
 * PROTOCOL_FEE_BPS=10 on real chains (Circle's USDC, LayerZero's contracts, Ferry's worker): the typed data carries
 * the fee; at settlement the filler is paid the input less the fee and the fee accrues in the escrow, which the fee
 * recipient (or anyone, for it) withdraws with `ferry fees --withdraw`.
 */
describe('protocol fee (10 bps)', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  const waitFor = (orderId: string, status: string) => waitForStatus(h, mm.apiKey, orderId, status, 30_000);
  const feeRecipientBalance = () => balanceOf(h, h.chainA, h.usdcA, DEVNET_FEE_RECIPIENT);
  /** FerryEscrow.orderStatus on chain A: 1 Active, 2 Settled, 3 Refunded. */
  const escrowStatusOnA = (orderHash: `0x${string}`) =>
    publicClientFor(h.registry, h.chainA, 10_000).readContract({
      address: h.registry.chain(h.chainA)!.contracts.escrow,
      abi: loadArtifact('FerryEscrow').abi,
      functionName: 'orderStatus',
      args: [orderHash],
    });
  /** What chain A's escrow owes `account` in USDC (`owed`), read as `ferry fees` reads it. */
  const owedOnA = async (account: Address = DEVNET_FEE_RECIPIENT) =>
    (await readEscrowCredits(h.registry, account)).find((c) => c.chain === h.chainA && c.token === h.usdcA)!
      .owed;

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

  it('at settlement the filler receives the input less 10 bps and the fee accrues; ferry fees --withdraw pays it out', async () => {
    const input = 12_345_678n;
    const fee = (input * 10n) / 10_000n;
    const output = 12_000_000n;
    const before = {
      fees: await feeRecipientBalance(),
      owed: await owedOnA(),
      lp: await balanceOf(h, h.chainA, h.usdcA, lpWallet.address),
    };
    await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
    const swap = await executeSwap(h, { mm, lp }, { input, output });
    expect(swap.typedData.message.protocolFee).toBe(fee.toString());
    expect(swap.typedData.types.Order.at(-2)).toEqual({ name: 'protocolFee', type: 'uint256' });
    expect(swap.typedData.types.Order.at(-1)).toEqual({ name: 'exclusivityDeadline', type: 'uint256' });

    await waitFor(swap.orderId, 'deposited');
    await fillSwap(h, lpWallet, swap, output);
    const completed = await waitFor(swap.orderId, 'completed');
    expect(completed.details.protocolFee).toBe(fee.toString());

    // The fee stays in the escrow, owed to the fee recipient; the filler has its share at once.
    expect(await feeRecipientBalance()).toBe(before.fees);
    expect((await owedOnA()) - before.owed).toBe(fee);
    expect((await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)) - before.lp).toBe(input - fee);
    const pub = await h.http('GET', `/api/public/orders/${swap.orderId}`);
    expect(pub.body.data.order.protocolFee).toBe(fee.toString());
    const chains = await h.http('GET', '/api/public/chains');
    expect(chains.body.data.protocolFeeBps).toBe(10);
    const stats = await h.http('GET', '/api/public/stats');
    const day = stats.body.data.volume.find((row: { inputToken: string }) => row.inputToken === h.usdcA);
    expect(BigInt(day.protocolFee)).toBeGreaterThanOrEqual(fee);

    // The operator's view: what each escrow owes the fee recipient, per token.
    const owed = await owedOnA();
    const shown = await ferryFees(['--registry', h.registryFile, '--json']);
    expect(shown.code).toBe(0);
    const credits = JSON.parse(shown.stdout).credits as {
      chain: string;
      token: string;
      account: string;
      owed: string;
    }[];
    expect(credits.find((c) => c.chain === h.chainA && c.token === h.usdcA)).toMatchObject({
      account: DEVNET_FEE_RECIPIENT,
      owed: owed.toString(),
    });
    // --withdraw needs a key to pay the gas; any funded key will do.
    const keyless = await ferryFees(['--registry', h.registryFile, '--withdraw']);
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toContain('--withdraw needs --private-key (or WITHDRAW_PRIVATE_KEY)');
    const paid = await ferryFees(['--registry', h.registryFile, '--withdraw'], {
      WITHDRAW_PRIVATE_KEY: gasPayerKey,
    });
    expect(paid.stderr).toBe('');
    expect(paid.code).toBe(0);
    expect(paid.stdout).toMatch(
      new RegExp(
        `withdrew ${Number(owed) / 1e6} USDC on ${h.chainA} to ${DEVNET_FEE_RECIPIENT} \\(tx 0x[0-9a-f]{64}\\)`,
      ),
    );
    expect(await feeRecipientBalance()).toBe(before.fees + owed);
    expect(await owedOnA()).toBe(0n);
  });

  it('a fee recipient blacklisted by USDC never blocks the filler: the order completes, the fee stays owed until it is cleared', async () => {
    const input = 20_000_000n;
    const fee = (input * 10n) / 10_000n;
    const output = 19_800_000n;
    // The test before withdrew every fee it accrued (so on a build without credits this fails on the settlement).
    const owedBefore = 0n;
    const lpBefore = await balanceOf(h, h.chainA, h.usdcA, lpWallet.address);
    await usdcAdmin(h, h.chainA, { functionName: 'blacklist', who: DEVNET_FEE_RECIPIENT });
    let cleared = false;
    try {
      await approveEscrow(h, h.chainA, h.usdcA, h.offerer, input);
      const swap = await executeSwap(h, { mm, lp }, { input, output });
      await waitFor(swap.orderId, 'deposited');
      await fillSwap(h, lpWallet, swap, output);
      const completed = await waitFor(swap.orderId, 'completed');
      expect(completed.details.settlement.status).toBe('delivered');
      expect((await balanceOf(h, h.chainA, h.usdcA, lpWallet.address)) - lpBefore).toBe(input - fee);
      expect((await owedOnA()) - owedBefore).toBe(fee);

      // While blacklisted the fee cannot be paid out: the withdrawal fails, says so, and the fee stays owed.
      const refused = await ferryFees(['--registry', h.registryFile, '--withdraw'], {
        WITHDRAW_PRIVATE_KEY: gasPayerKey,
      });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/could not withdraw .* USDC on .*: .*account is blacklisted/);
      expect((await owedOnA()) - owedBefore).toBe(fee);
      // Past the grace the order stays settled: nothing is refunded.
      await increaseChainTime(h, h.chainA, 3 * 3600);
      await increaseChainTime(h, h.chainB, 3 * 3600);
      await workerPasses(h, 2);
      expect(await escrowStatusOnA(swap.orderHash)).toBe(2);
      expect((await waitFor(swap.orderId, 'completed')).status).toBe('completed');

      await usdcAdmin(h, h.chainA, { functionName: 'unBlacklist', who: DEVNET_FEE_RECIPIENT });
      cleared = true;
      const fees = await feeRecipientBalance();
      const owed = await owedOnA();
      const paid = await ferryFees(['--registry', h.registryFile, '--withdraw'], {
        WITHDRAW_PRIVATE_KEY: gasPayerKey,
      });
      expect(paid.code).toBe(0);
      expect(await feeRecipientBalance()).toBe(fees + owed);
      expect(await owedOnA()).toBe(0n);
    } finally {
      if (!cleared) await usdcAdmin(h, h.chainA, { functionName: 'unBlacklist', who: DEVNET_FEE_RECIPIENT });
    }
  }, 120_000);

  it('a refund returns the whole input: no fee is taken', async () => {
    const input = 5_000_000n;
    // The test before moved the chains' clocks: Ferry's quotes count from them.
    await catchUpClock(h);
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
