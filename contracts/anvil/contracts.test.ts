import {
  type BaseError,
  decodeErrorResult,
  encodeFunctionData,
  type Hex,
  hashTypedData,
  keccak256,
  maxUint256,
  parseEventLogs,
  parseSignature,
  toFunctionSelector,
  toHex,
  zeroAddress,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_TYPE } from '../../src/domain/order-typed-data.ts';
import {
  A,
  appAbi,
  approveAndDeposit,
  approveOutput,
  attest,
  attesterKey,
  B,
  balanceOf,
  compactProof,
  deployerKey,
  escrow,
  escrowAbi,
  expectRevert,
  fill,
  filler,
  fillerKey,
  hashOrder,
  INPUT_CHAIN_ID,
  makeOrder,
  messengerAbi,
  now,
  OUTPUT_CHAIN_ID,
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

/** FerryEscrow deposits, FerryFill fills and the attester route, on two anvil chains (contract-sides.ts). */
beforeAll(startSides, 180_000);
afterAll(stopSides);

describe('FerryEscrow order hashing', () => {
  it('hashOrder equals viem hashTypedData over the published Order type, on both chains', async () => {
    const order = await makeOrder();
    const expected = hashTypedData({
      domain: { name: 'Ferry', version: '1', chainId: INPUT_CHAIN_ID, verifyingContract: escrow() },
      types: { Order: ORDER_TYPE },
      primaryType: 'Order',
      message: order,
    });
    expect(await read(A, escrow(), escrowAbi, 'hashOrder', [order])).toBe(expected);
    expect(hashOrder(order, escrow())).toBe(expected);
    // The output chain records the fill under the same hash (the domain is the input chain's escrow).
    await approveOutput(order.outputAmount);
    const receipt = await fill(order);
    const [filled] = parseEventLogs({ abi: appAbi, eventName: 'Filled', logs: receipt.logs });
    expect((filled?.args as unknown as { orderHash: Hex } | undefined)?.orderHash).toBe(expected);
  });

  it('uses the exact Order type string', async () => {
    const typeString =
      'Order(address offerer,address recipient,address inputToken,address outputToken,uint256 inputAmount,' +
      'uint256 outputAmount,uint256 inputChainId,uint256 outputChainId,address filler,uint256 nonce,' +
      'uint256 openDeadline,uint256 fillDeadline,uint256 protocolFee,uint256 exclusivityDeadline)';
    expect(await read(A, escrow(), escrowAbi, 'ORDER_TYPEHASH')).toBe(keccak256(toHex(typeString)));
  });
  it('refuses an order whose address words carry bits above their 160 (another hash for the same order)', async () => {
    const order = await makeOrder();
    const signature = await sign(order);
    const clean = encodeFunctionData({ abi: escrowAbi, functionName: 'deposit', args: [order, signature] });
    // deposit(order, signature): the selector, then the order's 14 words in place; word 1 is the recipient, which
    // deposit itself never reads, so only the hash's own check stands between it and a second orderHash.
    const recipientWord = 2 + 8 + 64;
    const dirty = `${clean.slice(0, recipientWord)}01${clean.slice(recipientWord + 2)}` as Hex;
    const revertName = async (data: Hex) => {
      const error = await A.pub.call({ to: escrow(), data, account: stranger }).then(
        () => null,
        (e: BaseError) => e,
      );
      const raw = error?.walk((cause) => typeof (cause as { data?: unknown }).data === 'string') as
        | { data: Hex }
        | undefined;
      return raw ? decodeErrorResult({ abi: [...escrowAbi, ...tokenAbi], data: raw.data }).errorName : null;
    };
    expect(await revertName(dirty)).toBe('InvalidOrderEncoding');
    // The same call with the recipient word clean passes the hash (and fails later, on the missing allowance).
    expect(await revertName(clean)).not.toBe('InvalidOrderEncoding');
  });
});

describe('deposits: one slot per order', () => {
  it('locks the input under the orderHash, Active, with the offerer’s signature submitted by anyone', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order);
    const before = await balanceOf(A, usdcA(), escrow());
    const receipt = await approveAndDeposit(order);
    const [deposited] = parseEventLogs({ abi: escrowAbi, eventName: 'Deposited', logs: receipt.logs });
    expect(deposited?.args).toEqual({
      orderHash,
      offerer: order.offerer,
      inputToken: order.inputToken,
      inputAmount: order.inputAmount,
    });
    expect(await status(orderHash)).toBe(1);
    expect(await balanceOf(A, usdcA(), escrow())).toBe(before + order.inputAmount);
    // One cold storage slot is written (the status); the rest comes back as calldata.
    const slots = await A.pub.request({
      method: 'debug_traceTransaction' as never,
      params: [
        receipt.transactionHash,
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ] as never,
    });
    const escrowStorage = (slots as { post: Record<string, { storage?: Record<string, Hex> }> }).post[
      escrow().toLowerCase()
    ]?.storage;
    expect(Object.keys(escrowStorage ?? {})).toHaveLength(1);
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
    await expectRevert(approveAndDeposit(order, `${r}${highS}${flippedV}` as Hex), 'WrongSigner');

    const good = await sign(order);
    await expectRevert(approveAndDeposit(order, `${good.slice(0, -2)}01` as Hex), 'WrongSigner');
    await expectRevert(approveAndDeposit(order, good.slice(0, -2) as Hex), 'WrongSigner');
    expect(await status(hashOrder(order))).toBe(0);

    // A signature that recovers nobody never stands for the zero address.
    const nobody = `0x${'00'.repeat(64)}1b` as Hex;
    await expectRevert(approveAndDeposit({ ...order, offerer: zeroAddress }, nobody), 'WrongSigner');
  });

  it('rejects orders for another chain, past their open deadline or malformed', async () => {
    await expectRevert(
      approveAndDeposit(await makeOrder({ inputChainId: BigInt(OUTPUT_CHAIN_ID) })),
      'WrongChain',
    );
    const t = await now(A);
    await expectRevert(approveAndDeposit(await makeOrder({ openDeadline: t - 1n })), 'OrderExpired');
    await expectRevert(approveAndDeposit(await makeOrder({ inputAmount: 0n })), 'InvalidOrder');
    await expectRevert(approveAndDeposit(await makeOrder({ fillDeadline: t + 599n })), 'InvalidOrder');
  });

  it('refuses an order whose fillDeadline + settleGrace overflows or does not fit uint32 (ERC-7683)', async () => {
    const grace = (await read(A, escrow(), escrowAbi, 'settleGrace')) as bigint;
    const last = maxUint256 - grace;
    for (const fillDeadline of [maxUint256, last + 1n, last, 2n ** 32n]) {
      const order = await makeOrder({ fillDeadline });
      await expectRevert(approveAndDeposit(order), 'InvalidOrder');
      expect(await status(hashOrder(order))).toBe(0);
    }
    // The last fill deadline ERC-7683 can state is accepted, and its refund time fits.
    const order = await makeOrder({ fillDeadline: 2n ** 32n - 1n });
    await approveAndDeposit(order);
    expect(await status(hashOrder(order))).toBe(1);
  });

  it('accepts an order with no filler: it is open to any filler from the start', async () => {
    const open = await makeOrder({ filler: zeroAddress });
    await approveAndDeposit(open);
    expect(await status(hashOrder(open))).toBe(1);
    await send(B, deployerKey, usdtB(), tokenAbi, 'mint', [stranger.address, open.outputAmount]);
    await send(B, strangerKey, usdtB(), tokenAbi, 'approve', [B.ferry.app, open.outputAmount]);
    const receipt = await fill(open, strangerKey);
    expect(parseEventLogs({ abi: appAbi, eventName: 'Filled', logs: receipt.logs })[0]?.args).toMatchObject({
      orderHash: hashOrder(open),
      filler: stranger.address,
    });
    expect(await read(B, B.ferry.app, appAbi, 'fillerOf', [hashOrder(open)])).toBe(stranger.address);
  });

  it('fails the deposit when the offerer has not approved the escrow', async () => {
    const order = await makeOrder();
    await send(A, offererKey, order.inputToken, tokenAbi, 'approve', [escrow(), 0n]);
    // SafeERC20 passes the token's own revert through: here the test token's InsufficientAllowance().
    await expectRevert(
      send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]),
      toFunctionSelector('InsufficientAllowance()'),
    );
  });
});

describe('FerryFill (the output side of FerryApp)', () => {
  it('pays exactly the order’s output to its recipient, only from the order’s filler, once', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order);
    // Anyone else paying the recipient is refused: a stranger cannot record (and so block) the filler's fill.
    await send(B, strangerKey, usdtB(), tokenAbi, 'approve', [B.ferry.app, order.outputAmount]);
    await expectRevert(fill(order, strangerKey), 'NotFiller');
    await approveOutput(order.outputAmount * 2n);
    const before = {
      filler: await balanceOf(B, usdtB(), filler.address),
      recipient: await balanceOf(B, usdtB(), recipient),
    };
    const receipt = await fill(order);
    const block = await B.pub.getBlock({ blockNumber: receipt.blockNumber });
    expect(await read(B, B.ferry.app, appAbi, 'fillTimes', [orderHash])).toBe(block.timestamp);
    expect(await read(B, B.ferry.app, appAbi, 'fillerOf', [orderHash])).toBe(filler.address);
    const [filled] = parseEventLogs({ abi: appAbi, eventName: 'Filled', logs: receipt.logs });
    expect(filled?.args).toEqual({
      orderHash,
      filler: filler.address,
      recipient,
      outputToken: usdtB(),
      outputAmount: order.outputAmount,
    });
    expect(await balanceOf(B, usdtB(), filler.address)).toBe(before.filler - order.outputAmount);
    expect(await balanceOf(B, usdtB(), recipient)).toBe(before.recipient + order.outputAmount);
    await expectRevert(fill(order), 'AlreadyFilled');
  });

  it('refuses fills after the fill deadline and on another chain', async () => {
    const late = await makeOrder({ fillDeadline: (await now(B)) - 1n, openDeadline: (await now(B)) - 2n });
    await approveOutput(late.outputAmount);
    await expectRevert(fill(late), 'FillDeadlinePassed');
    const elsewhere = await makeOrder({ outputChainId: BigInt(INPUT_CHAIN_ID) });
    await expectRevert(fill(elsewhere), 'WrongChain');
    expect(await read(B, B.ferry.app, appAbi, 'fillTimes', [hashOrder(late)])).toBe(0n);
    expect(await read(B, B.ferry.app, appAbi, 'fillerOf', [hashOrder(late)])).toBe(zeroAddress);
  });
});

describe('the attester route (AttesterMessenger settles its own escrow)', () => {
  const relay = async (
    order: Awaited<ReturnType<typeof makeOrder>>,
    fillTime: bigint,
    signature: Hex,
    by = order.filler,
  ) =>
    send(A, strangerKey, A.attested.messenger, messengerAbi, 'relayFill', [
      A.attested.escrow,
      order,
      by,
      fillTime,
      signature,
    ]);

  it('settles with the attester’s signature over the fill time; anything else is refused or skipped', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, A.attested.escrow);
    await approveAndDeposit(order, undefined, A.attested.escrow);
    const fillTime = await now(A);
    // Not the attester's key; the attester's signature over another fill time or another order.
    await expectRevert(relay(order, fillTime, await attest(order, fillTime, fillerKey)), 'WrongAttester');
    await expectRevert(relay(order, fillTime + 1n, await attest(order, fillTime)), 'WrongAttester');
    const other = await makeOrder();
    await expectRevert(relay(order, fillTime, await attest(other, fillTime)), 'WrongAttester');
    // The attester's signature names the filler of record: a relayer cannot name another.
    await expectRevert(
      relay(order, fillTime, await attest(order, fillTime), stranger.address),
      'WrongAttester',
    );
    // The attester itself cannot call the escrow: only its messenger settles it.
    await expectRevert(
      send(A, attesterKey, A.attested.escrow, escrowAbi, 'settleFills', [
        order.outputChainId,
        filler.address,
        [compactProof(order, fillTime, A.attested.escrow)],
      ]),
      'NotSettler',
    );
    expect(await status(orderHash, A.attested.escrow)).toBe(1);

    // A fill attested after fillDeadline settles nothing: the escrow skips it as LateFill (2).
    const late = await relay(order, order.fillDeadline + 1n, await attest(order, order.fillDeadline + 1n));
    const [skipped] = parseEventLogs({ abi: escrowAbi, eventName: 'SettleSkipped', logs: late.logs });
    expect(skipped?.args).toEqual({ orderHash, reason: 2 });
    expect(await status(orderHash, A.attested.escrow)).toBe(1);

    const before = await balanceOf(A, usdcA(), filler.address);
    const settled = await relay(order, fillTime, await attest(order, fillTime));
    expect(parseEventLogs({ abi: escrowAbi, eventName: 'Settled', logs: settled.logs })[0]?.args).toEqual({
      orderHash,
      filler: filler.address,
    });
    expect(await status(orderHash, A.attested.escrow)).toBe(2);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before + order.inputAmount);
    // A replay settles nothing: NotActive (0), and the filler is not paid twice.
    const replay = await relay(order, fillTime, await attest(order, fillTime));
    expect(
      parseEventLogs({ abi: escrowAbi, eventName: 'SettleSkipped', logs: replay.logs })[0]?.args,
    ).toEqual({
      orderHash,
      reason: 0,
    });
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before + order.inputAmount);
  });

  it('pays the filler of record the attester names: a second filler only after the exclusivity', async () => {
    const order = await makeOrder({ exclusivityDeadline: (await now(A)) + 100n });
    const orderHash = hashOrder(order, A.attested.escrow);
    await approveAndDeposit(order, undefined, A.attested.escrow);
    const within = order.exclusivityDeadline;
    const early = await relay(
      order,
      within,
      await attest(order, within, attesterKey, stranger.address),
      stranger.address,
    );
    expect(parseEventLogs({ abi: escrowAbi, eventName: 'SettleSkipped', logs: early.logs })[0]?.args).toEqual(
      {
        orderHash,
        reason: 3,
      },
    );
    const after = within + 1n;
    const before = await balanceOf(A, usdcA(), stranger.address);
    const settled = await relay(
      order,
      after,
      await attest(order, after, attesterKey, stranger.address),
      stranger.address,
    );
    expect(parseEventLogs({ abi: escrowAbi, eventName: 'Settled', logs: settled.logs })[0]?.args).toEqual({
      orderHash,
      filler: stranger.address,
    });
    expect(await balanceOf(A, usdcA(), stranger.address)).toBe(before + order.inputAmount);
  });
});
