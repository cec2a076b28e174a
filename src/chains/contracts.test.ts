import { type Hex, hashTypedData, keccak256, parseEventLogs, parseSignature, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  A,
  approveAndDeposit,
  approveOutput,
  attest,
  attester,
  attesterKey,
  B,
  balanceOf,
  deployerKey,
  escrow,
  escrowAbi,
  expectRevert,
  fill,
  fillAbi,
  filler,
  fillerKey,
  hashOrder,
  INPUT_CHAIN_ID,
  makeOrder,
  messengerAbi,
  now,
  OUTPUT_CHAIN_ID,
  offerer,
  offererKey,
  read,
  recipient,
  send,
  sign,
  startSides,
  status,
  stopSides,
  stranger,
  strangerKey,
  tokenAbi,
  usdcA,
  usdtB,
} from '../../test/support/contract-sides.ts';
import { ORDER_TYPE } from '../domain/order-typed-data.ts';
import { fillAttestationTypedData } from './fill-attestation.ts';

beforeAll(startSides);
afterAll(stopSides);

// ------------------------------------------------------------------ tests

describe('FerryEscrow order hashing', () => {
  it('hashOrder equals viem hashTypedData over the published Order type', async () => {
    const order = await makeOrder();
    const expected = hashTypedData({
      domain: { name: 'Ferry', version: '1', chainId: INPUT_CHAIN_ID, verifyingContract: escrow() },
      types: { Order: ORDER_TYPE },
      primaryType: 'Order',
      message: order,
    });
    expect(await read(A, escrow(), escrowAbi, 'hashOrder', [order])).toBe(expected);
    expect(hashOrder(order, escrow())).toBe(expected);
  });

  it('uses the exact Order type string', async () => {
    const typeString =
      'Order(address offerer,address recipient,address inputToken,address outputToken,uint256 inputAmount,' +
      'uint256 outputAmount,uint256 inputChainId,uint256 outputChainId,address filler,uint256 nonce,' +
      'uint256 openDeadline,uint256 fillDeadline)';
    expect(await read(A, escrow(), escrowAbi, 'ORDER_TYPEHASH')).toBe(keccak256(toHex(typeString)));
  });
});

describe('swap lifecycle', () => {
  it('deposit -> fill -> attest -> settle conserves balances', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    const before = {
      offerer: await balanceOf(A, usdcA(), offerer.address),
      fillerIn: await balanceOf(A, usdcA(), filler.address),
      escrow: await balanceOf(A, usdcA(), escrow()),
      fillerOut: await balanceOf(B, usdtB(), filler.address),
      recipient: await balanceOf(B, usdtB(), recipient),
    };

    const depositReceipt = await approveAndDeposit(order);
    const [deposited] = parseEventLogs({ abi: escrowAbi, logs: depositReceipt.logs, eventName: 'Deposited' });
    expect(deposited?.args).toEqual({
      orderHash,
      offerer: offerer.address,
      inputToken: order.inputToken,
      inputAmount: order.inputAmount,
    });
    expect(await status(orderHash)).toBe(1);
    expect(await balanceOf(A, usdcA(), escrow())).toBe(before.escrow + order.inputAmount);

    await approveOutput(order.outputAmount);
    await fill(order, orderHash);
    expect(await read(B, B.deployment.contracts.fill, fillAbi, 'filled', [orderHash, filler.address])).toBe(
      true,
    );

    // Anyone may relay the attester's signature.
    await send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
      escrow(),
      orderHash,
      await attest(orderHash),
    ]);
    expect(await status(orderHash)).toBe(2);

    expect(await balanceOf(A, usdcA(), offerer.address)).toBe(before.offerer - order.inputAmount);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before.fillerIn + order.inputAmount);
    expect(await balanceOf(A, usdcA(), escrow())).toBe(before.escrow);
    expect(await balanceOf(B, usdtB(), filler.address)).toBe(before.fillerOut - order.outputAmount);
    expect(await balanceOf(B, usdtB(), recipient)).toBe(before.recipient + order.outputAmount);

    // The attestation cannot settle twice.
    await expectRevert(
      send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
        escrow(),
        orderHash,
        await attest(orderHash),
      ]),
      'NotActive',
    );
  });

  it('rejects a replayed deposit of the same signed order', async () => {
    const order = await makeOrder();
    const signature = await sign(order);
    await approveAndDeposit(order, signature);
    await expectRevert(approveAndDeposit(order, signature), 'OrderExists');
  });

  it('rejects signatures that are not the offerer’s, malleable or malformed', async () => {
    const order = await makeOrder();
    await expectRevert(approveAndDeposit(order, await sign(order, strangerKey)), 'WrongSigner');
    // The offerer's genuine signature does not cover a tampered order (here: a different recipient).
    const tampered = { ...order, recipient: stranger.address };
    await expectRevert(approveAndDeposit(tampered, await sign(order)), 'WrongSigner');

    // Same signature, other half of the curve: (r, n - s, v ^ 1) recovers the same key but is rejected.
    const { r, s, yParity } = parseSignature(await sign(order));
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = (n - BigInt(s)).toString(16).padStart(64, '0');
    const flippedV = (yParity === 0 ? 28 : 27).toString(16);
    await expectRevert(approveAndDeposit(order, `${r}${highS}${flippedV}` as Hex), 'InvalidSignature');

    const good = await sign(order);
    await expectRevert(approveAndDeposit(order, `${good.slice(0, -2)}01` as Hex), 'InvalidSignature');
    await expectRevert(approveAndDeposit(order, good.slice(0, -2) as Hex), 'InvalidSignature');
    expect(await status(hashOrder(order, escrow()))).toBe(0);
  });

  it('rejects orders for another chain, past their open deadline or malformed', async () => {
    await expectRevert(
      approveAndDeposit(await makeOrder({ inputChainId: BigInt(OUTPUT_CHAIN_ID) })),
      'WrongChain',
    );
    const t = await now(A);
    await expectRevert(approveAndDeposit(await makeOrder({ openDeadline: t - 1n })), 'OrderExpired');
    await expectRevert(approveAndDeposit(await makeOrder({ inputAmount: 0n })), 'InvalidOrder');
    const noFiller = await makeOrder({ filler: '0x0000000000000000000000000000000000000000' });
    await expectRevert(approveAndDeposit(noFiller), 'InvalidOrder');
  });

  it('fails the deposit when the offerer has not approved the escrow', async () => {
    const order = await makeOrder();
    await send(A, offererKey, order.inputToken, tokenAbi, 'approve', [escrow(), 0n]);
    // The token's InsufficientAllowance revert surfaces as SafeTransfer's TransferFailed(token).
    await expectRevert(
      send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]),
      'TransferFailed',
    );
  });
});

describe('FerryFill', () => {
  it('fills an order only once per filler, and a stranger cannot block the filler', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    // A stranger pays first under the same hash: recorded as its own fill, not the designated filler's.
    await send(B, offererKey, usdtB(), tokenAbi, 'approve', [
      B.deployment.contracts.fill,
      order.outputAmount,
    ]);
    await fill(order, orderHash, offererKey);
    await expectRevert(fill(order, orderHash, offererKey), 'AlreadyFilled');
    await approveOutput(order.outputAmount * 2n);
    await fill(order, orderHash);
    await expectRevert(fill(order, orderHash), 'AlreadyFilled');
  });

  it('refuses fills after the fill deadline', async () => {
    const order = await makeOrder({ fillDeadline: (await now(B)) - 1n });
    await approveOutput(order.outputAmount);
    await expectRevert(fill(order, hashOrder(order, escrow())), 'FillDeadlinePassed');
  });
});

describe('settlement authorisation', () => {
  it('only the messenger can settle, and only with the attester’s signature for this escrow', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    await approveAndDeposit(order);
    const messenger = A.deployment.contracts.messenger;

    await expectRevert(send(A, fillerKey, escrow(), escrowAbi, 'settle', [orderHash]), 'NotMessenger');
    await expectRevert(send(A, attesterKey, escrow(), escrowAbi, 'settle', [orderHash]), 'NotMessenger');
    await expectRevert(
      send(A, fillerKey, messenger, messengerAbi, 'relayFill', [
        escrow(),
        orderHash,
        await attest(orderHash, fillerKey),
      ]),
      'WrongAttester',
    );
    // A genuine attestation for another escrow cannot be redirected to this one. (Not B's escrow: the
    // deterministic deployment puts it at the same address; the chain id in the digest separates those.)
    const otherEscrow = await attest(orderHash, attesterKey, stranger.address);
    await expectRevert(
      send(A, fillerKey, messenger, messengerAbi, 'relayFill', [escrow(), orderHash, otherEscrow]),
      'WrongAttester',
    );
    // Nor one signed for the same escrow address on the other chain.
    const otherChain = await attester.signTypedData(
      fillAttestationTypedData({
        messenger,
        escrow: escrow(),
        inputChainId: OUTPUT_CHAIN_ID,
        orderHash,
        filler: filler.address,
        fillTime: 0n,
      }),
    );
    await expectRevert(
      send(A, fillerKey, messenger, messengerAbi, 'relayFill', [escrow(), orderHash, otherChain]),
      'WrongAttester',
    );
    // Nor an attestation for a different order.
    const otherOrder = await attest(hashOrder(await makeOrder(), escrow()));
    await expectRevert(
      send(A, fillerKey, messenger, messengerAbi, 'relayFill', [escrow(), orderHash, otherOrder]),
      'WrongAttester',
    );
    expect(await status(orderHash)).toBe(1);
  });
});
