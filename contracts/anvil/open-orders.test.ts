import { type Address, createTestClient, getAddress, http, parseEventLogs, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { deployLz } from '../../src/chains/layerzero/lz-chain-client.ts';
import type { OrderTerms } from '../../src/domain/order-typed-data.ts';
import {
  A,
  appAbi,
  approveAndDeposit,
  B,
  balanceOf,
  compactProof,
  deliver,
  deployerKey,
  depositedOrder,
  escrow,
  escrowAbi,
  events,
  expectRevert,
  feeOf,
  feeRecipient,
  fill,
  fillAndProve,
  filler,
  fillerKey,
  GRACE,
  hashOrder,
  increaseTime,
  makeOrder,
  now,
  prove,
  read,
  recipient,
  send,
  startSides,
  status,
  stopSides,
  stranger,
  strangerKey,
  tokenAbi,
  usdcA,
  usdtB,
} from '../../test/support/contract-sides.ts';

/**
 * Open orders (contract-sides.ts: LayerZero's own contracts on two anvils, Ferry's apps wired and locked): an
 * order's filler is exclusive until its exclusivityDeadline, after which any filler may fill, prove and be paid; a
 * zero filler is open from the start; and the escrow's fixed protocol fee.
 */
beforeAll(async () => {
  await startSides();
  // The second filler: funded on the output chain, approved to B's app.
  await send(B, deployerKey, usdtB(), tokenAbi, 'mint', [stranger.address, 1_000_000_000n]);
  await send(B, strangerKey, usdtB(), tokenAbi, 'approve', [B.ferry.app, 1_000_000_000n]);
  await send(B, fillerKey, usdtB(), tokenAbi, 'approve', [B.ferry.app, 1_000_000_000n]);
}, 180_000);
afterAll(stopSides);

/** An order exclusive to `filler` for `seconds` of output-chain time, deposited on A. */
async function exclusiveFor(seconds: bigint): Promise<OrderTerms> {
  return depositedOrder({ exclusivityDeadline: (await now(B)) + seconds });
}

/** The filler of record B's app holds for `order`, and its fill time. */
async function recorded(order: OrderTerms) {
  const hash = hashOrder(order);
  return {
    filler: await read<Address>(B, B.ferry.app, appAbi, 'fillerOf', [hash]),
    time: await read<bigint>(B, B.ferry.app, appAbi, 'fillTimes', [hash]),
  };
}

/** Delivers `packet` to A and checks the escrow settled `order` to `paid`, moving exactly the payout. */
async function expectPaid(packet: Parameters<typeof deliver>[0], order: OrderTerms, paid: Address) {
  const before = {
    paid: await balanceOf(A, usdcA(), paid),
    filler: await balanceOf(A, usdcA(), filler.address),
    escrow: await balanceOf(A, usdcA(), escrow()),
  };
  const { receipt } = await deliver(packet);
  expect(events(receipt.logs, 'Settled')).toEqual([{ orderHash: hashOrder(order), filler: paid }]);
  expect(events(receipt.logs, 'SettleSkipped')).toEqual([]);
  const payout = order.inputAmount - order.protocolFee;
  expect(await balanceOf(A, usdcA(), paid)).toBe(before.paid + payout);
  if (paid !== filler.address) expect(await balanceOf(A, usdcA(), filler.address)).toBe(before.filler);
  expect(await balanceOf(A, usdcA(), escrow())).toBe(before.escrow - payout);
  expect(await status(hashOrder(order))).toBe(2);
}

describe('exclusivity', () => {
  it('before exclusivityDeadline only the quoted filler may fill: anyone else reverts NotFiller', async () => {
    const order = await exclusiveFor(600n);
    const recipientBefore = await balanceOf(B, usdtB(), recipient);
    await expectRevert(fill(order, strangerKey), 'NotFiller');
    await expectRevert(fillAndProve(order, strangerKey), 'NotFiller');
    expect(await recorded(order)).toEqual({ filler: zeroAddress, time: 0n });
    expect(await balanceOf(B, usdtB(), recipient)).toBe(recipientBefore);
    // The quoted filler still fills within it, and is paid.
    const { packet } = await fillAndProve(order);
    expect((await recorded(order)).filler).toBe(filler.address);
    await expectPaid(packet, order, filler.address);
  });

  it('after it a second filler fills, anyone proves, and the escrow pays the second filler', async () => {
    const order = await exclusiveFor(60n);
    await expectRevert(fill(order, strangerKey), 'NotFiller');
    await increaseTime(B, 61);
    const recipientBefore = await balanceOf(B, usdtB(), recipient);
    const receipt = await fill(order, strangerKey);
    const [filled] = parseEventLogs({ abi: appAbi, eventName: 'Filled', logs: receipt.logs });
    expect(filled?.args).toMatchObject({ orderHash: hashOrder(order), filler: stranger.address });
    expect(await balanceOf(B, usdtB(), recipient)).toBe(recipientBefore + order.outputAmount);
    expect((await recorded(order)).filler).toBe(stranger.address);
    // The quoted filler comes too late: one fill per order.
    await expectRevert(fill(order), 'AlreadyFilled');
    // prove names the filler of record, whoever sends it (here the quoted filler, paying the fee).
    const { packet } = await prove([order], fillerKey);
    await expectPaid(packet, order, stranger.address);
  });

  it('after it a second filler fills and proves in one call (fillAndProve) and is paid', async () => {
    const order = await exclusiveFor(30n);
    await increaseTime(B, 31);
    const { packet } = await fillAndProve(order, strangerKey);
    expect(await recorded(order)).toMatchObject({ filler: stranger.address });
    await expectPaid(packet, order, stranger.address);
  });

  it('exclusivityDeadline itself is still the quoted filler’s; the second after it is anyone’s', async () => {
    const order = await exclusiveFor(30n);
    const test = createTestClient({ mode: 'anvil', chain: B.chain, transport: http(B.anvil.rpcUrl) });
    // A fill in a block at exactly exclusivityDeadline (simulated): exclusive still.
    await expectRevert(
      B.pub.simulateContract({
        address: B.ferry.app,
        abi: appAbi,
        functionName: 'fill',
        args: [order, escrow()],
        account: stranger,
        blockOverrides: { time: order.exclusivityDeadline },
      }),
      'NotFiller',
    );
    // The next block, one second later: open to anyone.
    await test.setNextBlockTimestamp({ timestamp: order.exclusivityDeadline + 1n });
    const receipt = await fill(order, strangerKey);
    const block = await B.pub.getBlock({ blockNumber: receipt.blockNumber });
    expect(block.timestamp).toBe(order.exclusivityDeadline + 1n);
    expect((await recorded(order)).filler).toBe(stranger.address);
  });

  it('a zero-filler order is open from the start: filled by anyone, proven, paid to whoever filled', async () => {
    const order = await depositedOrder({ filler: zeroAddress });
    const { packet } = await fillAndProve(order, strangerKey);
    expect(await recorded(order)).toMatchObject({ filler: stranger.address });
    await expectPaid(packet, order, stranger.address);

    // Fill only, then a prove by anyone: paid to the quoted filler's address this time, which filled it.
    const second = await depositedOrder({ filler: zeroAddress });
    await fill(second);
    await expectPaid((await prove([second])).packet, second, filler.address);
  });
});

describe('the protocol fee is the escrow’s, fixed at deployment', () => {
  /** An escrow on A charging `bps`, settled by the deployer's key (so a test can settle it directly). */
  async function feeEscrow(bps: number): Promise<Address> {
    const args = [
      getAddress(A.wallet(deployerKey).account.address),
      BigInt(GRACE),
      feeRecipient,
      BigInt(bps),
    ];
    const deployed = await deployLz(A.lzClient(deployerKey), 'escrow', loadArtifact('FerryEscrow'), args);
    return getAddress(deployed.address);
  }

  it('a deposit whose fee is not the escrow’s bps of the input reverts WrongFee(expected)', async () => {
    // A's LayerZero escrow charges nothing: any fee is wrong.
    expect(await read(A, escrow(), escrowAbi, 'protocolFeeBps')).toBe(0n);
    const charged = await makeOrder({ protocolFee: 1n });
    await expect(approveAndDeposit(charged)).rejects.toThrow(/WrongFee[\s\S]*\(0\)/);
    expect(await status(hashOrder(charged))).toBe(0);

    const feeful = await feeEscrow(25);
    const order = await makeOrder({ inputAmount: 100_000_001n });
    const expected = feeOf(order.inputAmount, 25); // 250,000: rounded down
    expect(expected).toBe(250_000n);
    for (const protocolFee of [0n, expected - 1n, expected + 1n]) {
      const wrong = { ...order, protocolFee };
      await expect(approveAndDeposit(wrong, undefined, feeful)).rejects.toThrow(/WrongFee[\s\S]*\(250000\)/);
    }
    await approveAndDeposit({ ...order, protocolFee: expected }, undefined, feeful);
    expect(await status(hashOrder({ ...order, protocolFee: expected }, feeful), feeful)).toBe(1);
  });

  it('an escrow deployed with 30 bps takes exactly the fee at settlement and pays the filler the rest', async () => {
    const feeful = await feeEscrow(30);
    expect(await read(A, feeful, escrowAbi, 'protocolFeeBps')).toBe(30n);
    const order = await makeOrder({ inputAmount: 123_456_789n });
    const fee = feeOf(order.inputAmount, 30);
    const terms = { ...order, protocolFee: fee };
    const depositReceipt = await approveAndDeposit(terms, undefined, feeful);
    expect(events(depositReceipt.logs, 'Deposited')[0]).toMatchObject({ inputAmount: order.inputAmount });
    const before = {
      filler: await balanceOf(A, usdcA(), filler.address),
      escrow: await balanceOf(A, usdcA(), feeful),
    };
    const proof = compactProof(terms, (await now(A)) - 1n, feeful);
    const receipt = await send(A, deployerKey, feeful, escrowAbi, 'settleFills', [
      terms.outputChainId,
      filler.address,
      [proof],
    ]);
    expect(events(receipt.logs, 'FeeAccrued')).toEqual([{ orderHash: proof.orderHash, protocolFee: fee }]);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before.filler + order.inputAmount - fee);
    expect(await balanceOf(A, usdcA(), feeful)).toBe(before.escrow - order.inputAmount + fee);
    expect(await read(A, feeful, escrowAbi, 'owed', [usdcA(), feeRecipient])).toBe(fee);
    const withdrawal = await send(A, strangerKey, feeful, escrowAbi, 'withdraw', [usdcA(), feeRecipient]);
    expect(events(withdrawal.logs, 'Withdrawn')).toEqual([
      { token: usdcA(), account: feeRecipient, amount: fee },
    ]);
    expect(await balanceOf(A, usdcA(), feeful)).toBe(before.escrow - order.inputAmount);
  });

  it('refuses a fee above 10,000 bps, or a fee with no recipient, at deployment', async () => {
    const deploy = (args: unknown[]) =>
      deployLz(A.lzClient(deployerKey), 'escrow', loadArtifact('FerryEscrow'), args);
    const settler = getAddress(A.wallet(deployerKey).account.address);
    await expect(deploy([settler, BigInt(GRACE), feeRecipient, 10_001n])).rejects.toThrow();
    await expect(deploy([settler, BigInt(GRACE), zeroAddress, 1n])).rejects.toThrow();
    // 10,000 bps (the whole input) with a recipient is the limit.
    await deploy([settler, BigInt(GRACE), feeRecipient, 10_000n]);
  });
});
