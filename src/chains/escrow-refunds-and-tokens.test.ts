import { type Address, createTestClient, http, parseSignature } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  A,
  approveAndDeposit,
  approveOutput,
  attest,
  balanceOf,
  deployerKey,
  escrow,
  escrowAbi,
  expectRevert,
  fill,
  filler,
  GRACE,
  hashOrder,
  INPUT_CHAIN_ID,
  increaseTime,
  makeOrder,
  messengerAbi,
  offerer,
  offererKey,
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
} from '../../test/support/contract-sides.ts';
import { loadArtifact } from './contract-artifacts.ts';

/** FerryEscrow refunds, tokens that break the ERC-20 conventions, and deposits authorised by permit, on two anvil chains. */
beforeAll(startSides);
afterAll(stopSides);

describe('refunds', () => {
  it('refunds only after the fill deadline plus the settle grace, once, and never settles afterwards', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    const before = await balanceOf(A, usdcA(), offerer.address);
    await approveAndDeposit(order);
    expect(await read(A, escrow(), escrowAbi, 'settleGrace')).toBe(BigInt(GRACE));
    await expectRevert(send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]), 'RefundNotOpen');
    // Past fillDeadline but inside the grace: still closed, for the offerer too.
    await increaseTime(A, 3601);
    await expectRevert(send(A, offererKey, escrow(), escrowAbi, 'refund', [orderHash]), 'RefundNotOpen');

    await increaseTime(A, GRACE);
    const receipt = await send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]);
    expect(receipt.logs).toHaveLength(2); // Transfer + Refunded
    expect(await status(orderHash)).toBe(3);
    expect(await balanceOf(A, usdcA(), offerer.address)).toBe(before);

    await expectRevert(send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]), 'NotActive');
    await expectRevert(
      send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
        escrow(),
        orderHash,
        await attest(orderHash),
      ]),
      'NotActive',
    );
    // The old signature cannot re-open it: refunds happen after fillDeadline >= openDeadline, and the
    // orderHash stays marked Refunded regardless.
    await expectRevert(approveAndDeposit(order), 'OrderExpired');
  });

  it('keeps refund closed at fillDeadline + settleGrace and opens it one second later', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
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
        args: [orderHash],
      });
    await test.setNextBlockTimestamp({ timestamp: opensAfter });
    await test.mine({ blocks: 1 });
    await expectRevert(refundAtLatest(), 'RefundNotOpen');
    await test.setNextBlockTimestamp({ timestamp: opensAfter + 1n });
    await test.mine({ blocks: 1 });
    await refundAtLatest();
    await send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]);
    expect(await status(orderHash)).toBe(3);
  });

  it('settles a fill made by fillDeadline during the grace, after which refund is closed for good', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    const fillerBefore = await balanceOf(A, usdcA(), filler.address);
    await approveAndDeposit(order);
    await approveOutput(order.outputAmount);
    await fill(order, orderHash);
    // The input chain passes fillDeadline before the attestation is relayed: inside the grace it still settles.
    await increaseTime(A, 3601 + GRACE / 2);
    await send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
      escrow(),
      orderHash,
      await attest(orderHash),
    ]);
    expect(await status(orderHash)).toBe(2);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(fillerBefore + order.inputAmount);
    await increaseTime(A, GRACE);
    await expectRevert(send(A, offererKey, escrow(), escrowAbi, 'refund', [orderHash]), 'NotActive');
  });

  it('cannot refund an order that was settled', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    await approveAndDeposit(order);
    await send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
      escrow(),
      orderHash,
      await attest(orderHash),
    ]);
    await increaseTime(A, 3601 + GRACE);
    await expectRevert(send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]), 'NotActive');
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
      'TransferFailed',
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
    const orderHash = hashOrder(order, escrow());
    await send(A, offererKey, token, abi, 'approve', [escrow(), order.inputAmount]);
    await send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]);
    await increaseTime(A, 3601 + GRACE);
    await send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]);
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
    const permitSig = await offerer.signTypedData({
      domain: { name: 'Devnet USD Coin', version: '1', chainId: INPUT_CHAIN_ID, verifyingContract: usdcA() },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: {
        owner: offerer.address,
        spender: escrow(),
        value: order.inputAmount,
        nonce: await read<bigint>(A, usdcA(), tokenAbi, 'nonces', [offerer.address]),
        deadline: permitDeadline,
      },
    });
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
