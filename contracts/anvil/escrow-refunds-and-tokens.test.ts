import { type Address, createTestClient, type Hex, http, parseEventLogs, parseSignature } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { permitTypedData } from '../../src/domain/swap-permit.ts';
import {
  A,
  approveAndDeposit,
  approveOutput,
  balanceOf,
  commit,
  deliver,
  deployerKey,
  escrow,
  escrowAbi,
  execute,
  expectRevert,
  fill,
  fillAndProve,
  filler,
  GRACE,
  hashOrder,
  INPUT_CHAIN_ID,
  increaseTime,
  makeOrder,
  offerer,
  offererKey,
  prove,
  read,
  send,
  sign,
  startSides,
  status,
  stopSides,
  stranger,
  strangerKey,
  tokenAbi,
  usdcA,
  verifyBy,
} from '../../test/support/contract-sides.ts';

type Order = Awaited<ReturnType<typeof makeOrder>>;

/**
 * FerryEscrow refunds (and proofs that arrive around them), a token failing during delivery, tokens that break the
 * ERC-20 conventions, and deposits authorised by permit, on two anvil chains with LayerZero (contract-sides.ts).
 */
beforeAll(startSides, 180_000);
afterAll(stopSides);

const refund = (order: Order, key: Hex = strangerKey) => send(A, key, escrow(), escrowAbi, 'refund', [order]);

describe('refunds', () => {
  it('refunds the full order only after the fill deadline plus the settle grace, once', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order);
    const before = await balanceOf(A, usdcA(), offerer.address);
    await approveAndDeposit(order);
    expect(await read(A, escrow(), escrowAbi, 'settleGrace')).toBe(BigInt(GRACE));
    await expectRevert(refund(order), 'RefundNotOpen');
    // Past fillDeadline but inside the grace: still closed, for the offerer too.
    await increaseTime(A, 3601);
    await expectRevert(refund(order, offererKey), 'RefundNotOpen');
    await increaseTime(A, GRACE);
    // The order must be the one deposited, field for field: another amount is another (unknown) order.
    await expectRevert(refund({ ...order, inputAmount: order.inputAmount * 2n }), 'NotActive');

    const receipt = await refund(order);
    expect(parseEventLogs({ abi: escrowAbi, eventName: 'Refunded', logs: receipt.logs })[0]?.args).toEqual({
      orderHash,
    });
    expect(await status(orderHash)).toBe(3);
    expect(await balanceOf(A, usdcA(), offerer.address)).toBe(before);
    await expectRevert(refund(order), 'NotActive');
    // The old signature cannot re-open it: refunds happen after fillDeadline >= openDeadline.
    await expectRevert(approveAndDeposit(order), 'OrderExpired');
  });

  it('keeps refund closed at fillDeadline + settleGrace and opens it one second later', async () => {
    const order = await makeOrder();
    await approveAndDeposit(order);
    const test = createTestClient({ mode: 'anvil', chain: A.chain, transport: http(A.anvil.rpcUrl) });
    const opensAfter = order.fillDeadline + BigInt(GRACE);
    // Calls run against the latest block, so each boundary is checked at exactly that block's time.
    const refundAtLatest = () =>
      A.pub.simulateContract({
        account: stranger,
        address: escrow(),
        abi: escrowAbi,
        functionName: 'refund',
        args: [order],
      });
    await test.setNextBlockTimestamp({ timestamp: opensAfter });
    await test.mine({ blocks: 1 });
    await expectRevert(refundAtLatest(), 'RefundNotOpen');
    await test.setNextBlockTimestamp({ timestamp: opensAfter + 1n });
    await test.mine({ blocks: 1 });
    await refundAtLatest();
    await refund(order);
    expect(await status(hashOrder(order))).toBe(3);
  });

  it('settles a fill made by fillDeadline and proven during the grace, after which refund is closed', async () => {
    const order = await makeOrder();
    const fillerBefore = await balanceOf(A, usdcA(), filler.address);
    await approveAndDeposit(order);
    await approveOutput(order.outputAmount);
    await fill(order);
    // The input chain passes fillDeadline before the proof arrives: inside the grace it still settles.
    await increaseTime(A, 3601 + GRACE / 2);
    await deliver((await prove([order])).packet);
    expect(await status(hashOrder(order))).toBe(2);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(fillerBefore + order.inputAmount);
    await increaseTime(A, GRACE);
    await expectRevert(refund(order, offererKey), 'NotActive');
  });

  it('a proof delivered after the refund settles nothing, and the offerer is not paid twice', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order);
    await approveAndDeposit(order);
    await approveOutput(order.outputAmount);
    await fill(order);
    // Nobody proves the fill in time: the offerer takes the input back.
    await increaseTime(A, 3601 + GRACE);
    await refund(order, offererKey);
    const balances = async () => ({
      offerer: await balanceOf(A, usdcA(), offerer.address),
      filler: await balanceOf(A, usdcA(), filler.address),
      escrow: await balanceOf(A, usdcA(), escrow()),
    });
    const before = await balances();
    const { receipt } = await deliver((await prove([order])).packet);
    expect(
      parseEventLogs({ abi: escrowAbi, eventName: 'SettleSkipped', logs: receipt.logs })[0]?.args,
    ).toEqual({
      orderHash,
      reason: 0,
    });
    expect(parseEventLogs({ abi: escrowAbi, eventName: 'Settled', logs: receipt.logs })).toEqual([]);
    expect(await status(orderHash)).toBe(3);
    expect(await balances()).toEqual(before);
  });
});

describe('the input token paused across fillDeadline + settleGrace', () => {
  it('a proof delivered while paused settles the order and credits the filler; no refund after it; the filler withdraws after unpause', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order);
    await approveAndDeposit(order);
    await approveOutput(order.outputAmount);
    const { packet } = await fillAndProve(order);
    await verifyBy(packet);
    await commit(packet);
    await send(A, deployerKey, usdcA(), tokenAbi, 'pause', []);
    // Nothing before this test leaves the filler a credit (so on a build without credits it fails on the delivery).
    const owedBefore = 0n;
    const owed = () => read<bigint>(A, escrow(), escrowAbi, 'owed', [usdcA(), filler.address]);
    const fillerBefore = await balanceOf(A, usdcA(), filler.address);
    try {
      // Past the grace while paused: the offerer's refund and the late delivery race; the delivery settles.
      await increaseTime(A, 3601 + GRACE);
      const receipt = await execute(packet);
      expect(await status(orderHash)).toBe(2);
      expect(
        parseEventLogs({ abi: escrowAbi, eventName: 'Credited', logs: receipt.logs }).map((e) => e.args),
      ).toEqual([{ token: usdcA(), account: filler.address, amount: order.inputAmount }]);
      expect(await owed()).toBe(owedBefore + order.inputAmount);
      // A proven fill is never refundable, paused or not.
      await expectRevert(refund(order, offererKey), 'NotActive');
      // While paused the credit cannot be paid and stays.
      await expect(
        send(A, strangerKey, escrow(), escrowAbi, 'withdraw', [usdcA(), filler.address]),
      ).rejects.toThrow();
      expect(await owed()).toBe(owedBefore + order.inputAmount);
    } finally {
      await send(A, deployerKey, usdcA(), tokenAbi, 'unpause', []);
    }
    await expectRevert(refund(order, offererKey), 'NotActive');
    await send(A, strangerKey, escrow(), escrowAbi, 'withdraw', [usdcA(), filler.address]);
    expect(await owed()).toBe(0n);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(fillerBefore + owedBefore + order.inputAmount);
  });

  it('a refund while paused marks the order Refunded and credits the offerer; a later proof settles nothing', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order);
    await approveAndDeposit(order);
    await send(A, deployerKey, usdcA(), tokenAbi, 'pause', []);
    // Nothing before this test leaves the offerer a credit.
    const owedBefore = 0n;
    const owed = () => read<bigint>(A, escrow(), escrowAbi, 'owed', [usdcA(), offerer.address]);
    try {
      await increaseTime(A, 3601 + GRACE);
      await refund(order, offererKey);
      expect(await status(orderHash)).toBe(3);
      expect(await owed()).toBe(owedBefore + order.inputAmount);
    } finally {
      await send(A, deployerKey, usdcA(), tokenAbi, 'unpause', []);
    }
    const offererBefore = await balanceOf(A, usdcA(), offerer.address);
    await send(A, strangerKey, escrow(), escrowAbi, 'withdraw', [usdcA(), offerer.address]);
    expect(await balanceOf(A, usdcA(), offerer.address)).toBe(offererBefore + owedBefore + order.inputAmount);
  });
});

describe('non-standard tokens', () => {
  async function deployTestToken(name: 'FalseToken' | 'NoReturnToken') {
    const { abi, bytecode } = loadArtifact(name);
    const hash = await A.wallet(deployerKey).deployContract({ abi, bytecode });
    const { contractAddress } = await A.pub.waitForTransactionReceipt({ hash });
    const token = contractAddress as Address;
    await send(A, deployerKey, token, abi, 'mint', [offerer.address, 1_000_000_000n]);
    return { token, abi };
  }

  it('reverts the deposit when transferFrom returns false', async () => {
    const { token, abi } = await deployTestToken('FalseToken');
    const order = await makeOrder({ inputToken: token });
    // No approval: FalseToken.transferFrom returns false instead of reverting.
    await expectRevert(
      send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]),
      'SafeERC20FailedOperation',
    );
    expect(await status(hashOrder(order, escrow()))).toBe(0);
    expect(await read(A, token, abi, 'balanceOf', [escrow()])).toBe(0n);

    // With an approval the same token works: `true` is accepted.
    await send(A, offererKey, token, abi, 'approve', [escrow(), order.inputAmount]);
    await send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]);
    expect(await read(A, token, abi, 'balanceOf', [escrow()])).toBe(order.inputAmount);
  });

  it('works with tokens that return nothing (USDT style)', async () => {
    const { token, abi } = await deployTestToken('NoReturnToken');
    const order = await makeOrder({ inputToken: token });
    await send(A, offererKey, token, abi, 'approve', [escrow(), order.inputAmount]);
    await send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]);
    await increaseTime(A, 3601 + GRACE);
    await send(A, strangerKey, escrow(), escrowAbi, 'refund', [order]);
    expect(await read(A, token, abi, 'balanceOf', [offerer.address])).toBe(1_000_000_000n);
  });

  it('rejects a token address without code', async () => {
    const order = await makeOrder({ inputToken: '0x000000000000000000000000000000000000dEaD' });
    // balanceOf on an empty account fails to decode, before transferFrom is even attempted.
    await expect(
      send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]),
    ).rejects.toThrow();
  });
});

describe('depositWithPermit', () => {
  it('opens an order without a prior approve transaction', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    await send(A, offererKey, order.inputToken, tokenAbi, 'approve', [escrow(), 0n]);
    const permitDeadline = order.openDeadline;
    const permit = permitTypedData({
      domain: { name: 'Devnet USD Coin', version: '1' },
      chainId: INPUT_CHAIN_ID,
      token: usdcA(),
      owner: offerer.address,
      spender: escrow(),
      value: order.inputAmount,
      nonce: await read<bigint>(A, usdcA(), tokenAbi, 'nonces', [offerer.address]),
      deadline: permitDeadline,
    });
    const permitSig = await offerer.signTypedData(permit as never);
    const { r, s, v } = parseSignature(permitSig);
    await send(A, deployerKey, escrow(), escrowAbi, 'depositWithPermit', [
      order,
      await sign(order),
      permitDeadline,
      Number(v),
      r,
      s,
    ]);
    expect(await status(orderHash)).toBe(1);
    expect(await read(A, usdcA(), tokenAbi, 'allowance', [offerer.address, escrow()])).toBe(0n);
  });
});
