import { type Address, concat, encodeAbiParameters, keccak256, parseEventLogs, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LzPacket } from '../../src/chains/layerzero/lz-packet.ts';
import { PROOF_MESSAGE } from '../../src/chains/settlement/prove-options.ts';
import {
  A,
  approveOutput,
  balanceOf,
  compactProof,
  deliver,
  depositedOrder,
  escrow,
  escrowAbi,
  events,
  expectRevert,
  feeRecipient,
  fill,
  fillAndProve,
  filler,
  hashOrder,
  now,
  prove,
  read,
  send,
  startSidesCharging,
  status,
  stopSides,
  stranger,
  strangerKey,
  tokenAbi,
  usdcA,
} from '../../test/support/contract-sides.ts';

/**
 * What the escrow does with proofs a compromised DVN quorum forges, and how it pays a batch (contract-sides.ts:
 * LayerZero's own contracts on two anvils, Ferry's apps wired and locked; every delivery step taken by hand).
 */
// The escrows charge 1% (100 bps): every order pays its fee at settlement.
beforeAll(() => startSidesCharging(100), 180_000);
afterAll(stopSides);

type Proof = ReturnType<typeof compactProof>;

/**
 * What a compromised DVN quorum can deliver: `packet`'s header (a genuine message from B's app, so the peer check
 * passes and its nonce is next) with a payload of its own. Both DVNs verify it, it is committed and executed.
 */
async function deliverForged(packet: LzPacket, proofFiller: Address, proofs: Proof[]) {
  const message = encodeAbiParameters(PROOF_MESSAGE, [escrow(), proofFiller, proofs]);
  const forged = { ...packet, message, payloadHash: keccak256(concat([packet.guid, message])) };
  return deliver(forged);
}

/** A genuine proof message from B (a fill of a fresh deposited order) whose place a forged one can take. */
async function carrierPacket(): Promise<LzPacket> {
  const carrier = await depositedOrder();
  await approveOutput(carrier.outputAmount);
  return (await fillAndProve(carrier)).packet;
}

describe('a message forged by a compromised DVN quorum', () => {
  const usdtA = () => A.tokens.usdt;
  const escrowBalances = async () => [
    await balanceOf(A, usdcA(), escrow()),
    await balanceOf(A, usdtA(), escrow()),
  ];

  it('an Active order with a wrong amount, token, filler or output chain, or a late fill: nothing settles, no token moves', async () => {
    const order = await depositedOrder();
    // The escrow holds the other token too, so a wrong-token proof would have something to take.
    await depositedOrder({ inputToken: usdtA() });
    // Deposited for a fill on a third chain: B's app cannot prove it.
    const elsewhere = await depositedOrder({ outputChainId: 910_003n });
    const exact = compactProof(order, order.fillDeadline - 1n);
    // Each carrier deposits an order of its own: taken before the balances, which no forgery may then change.
    const carriers = [await carrierPacket(), await carrierPacket()] as const;
    const before = await escrowBalances();

    const { receipt } = await deliverForged(carriers[0], filler.address, [
      { ...exact, inputAmount: exact.inputAmount + 1n },
      { ...exact, inputAmount: exact.inputAmount - 1n },
      { ...exact, inputToken: usdtA() },
      compactProof(elsewhere, elsewhere.fillDeadline - 1n),
      { ...exact, fillTime: order.fillDeadline + 1n },
    ]);
    const hash = hashOrder(order);
    expect(events(receipt.logs, 'SettleSkipped')).toEqual([
      { orderHash: hash, reason: 1 },
      { orderHash: hash, reason: 1 },
      { orderHash: hash, reason: 1 },
      { orderHash: hashOrder(elsewhere), reason: 1 },
      { orderHash: hash, reason: 2 },
    ]);
    // The exact terms, but paid to someone other than the order's filler within its exclusivity: WrongFiller (3).
    const { receipt: toStranger } = await deliverForged(carriers[1], stranger.address, [exact]);
    expect(events(toStranger.logs, 'SettleSkipped')).toEqual([{ orderHash: hash, reason: 3 }]);

    for (const r of [receipt, toStranger]) {
      expect(events(r.logs, 'Settled')).toEqual([]);
      expect(parseEventLogs({ abi: tokenAbi, eventName: 'Transfer', logs: r.logs })).toEqual([]);
    }
    expect(await escrowBalances()).toEqual(before);
    expect([await status(hash), await status(hashOrder(elsewhere))]).toEqual([1, 1]);

    // What such a quorum can still do: settle an Active order, unfilled, with its exact terms, to its own filler.
    const paid = await balanceOf(A, usdcA(), filler.address);
    const { receipt: exactOne } = await deliverForged(await carrierPacket(), filler.address, [exact]);
    expect(events(exactOne.logs, 'Settled')).toEqual([{ orderHash: hash, filler: filler.address }]);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(paid + order.inputAmount - order.protocolFee);
  });
});

describe('a forged proof naming another filler (WrongFiller)', () => {
  it('no filler, or a second filler within the exclusivity: skipped; past it the second filler is paid', async () => {
    const order = await depositedOrder({ exclusivityDeadline: (await now(A)) + 600n });
    const hash = hashOrder(order);
    const within = compactProof(order, order.exclusivityDeadline);
    const { receipt } = await deliverForged(await carrierPacket(), zeroAddress, [within]);
    expect(events(receipt.logs, 'SettleSkipped')).toEqual([{ orderHash: hash, reason: 3 }]);
    const { receipt: second } = await deliverForged(await carrierPacket(), stranger.address, [within]);
    expect(events(second.logs, 'SettleSkipped')).toEqual([{ orderHash: hash, reason: 3 }]);
    // Another exclusivity than the deposit's is another commitment: WrongTerms (1).
    const shifted = { ...within, exclusivityDeadline: within.fillTime - 1n };
    const { receipt: terms } = await deliverForged(await carrierPacket(), stranger.address, [shifted]);
    expect(events(terms.logs, 'SettleSkipped')).toEqual([{ orderHash: hash, reason: 1 }]);
    expect(await status(hash)).toBe(1);

    // A fill one second after the exclusivity is anyone's: the escrow pays whoever the proof names.
    const paid = await balanceOf(A, usdcA(), stranger.address);
    const after = { ...within, fillTime: order.exclusivityDeadline + 1n };
    const { receipt: settled } = await deliverForged(await carrierPacket(), stranger.address, [after]);
    expect(events(settled.logs, 'Settled')).toEqual([{ orderHash: hash, filler: stranger.address }]);
    expect(await balanceOf(A, usdcA(), stranger.address)).toBe(paid + order.inputAmount - order.protocolFee);
  });
});

describe('payouts of a batch', () => {
  it('proofs in two tokens: each run of one token pays the filler its sum once; fees accrue until withdrawn', async () => {
    const usdtA = A.tokens.usdt;
    const orders = [
      await depositedOrder({ inputAmount: 100_000_000n }),
      await depositedOrder({ inputAmount: 50_000_000n }),
      await depositedOrder({ inputToken: usdtA, inputAmount: 70_000_000n }),
      await depositedOrder({ inputAmount: 30_000_000n }),
    ];
    await approveOutput(orders.reduce((sum, o) => sum + o.outputAmount, 0n));
    for (const order of orders) await fill(order);
    const owed = (token: Address) =>
      read(A, escrow(), escrowAbi, 'owed', [token, feeRecipient]) as Promise<bigint>;
    const balances = async () =>
      Promise.all(
        [usdcA(), usdtA].flatMap((token) => [
          balanceOf(A, token, filler.address),
          balanceOf(A, token, feeRecipient),
          balanceOf(A, token, escrow()),
          owed(token),
        ]),
      );
    const before = await balances();

    const { receipt } = await deliver((await prove(orders)).packet);
    expect(events(receipt.logs, 'Settled').map((e) => e.orderHash)).toEqual(orders.map((o) => hashOrder(o)));
    expect(events(receipt.logs, 'FeeAccrued')).toEqual(
      orders.map((o) => ({
        orderHash: hashOrder(o),
        protocolFee: o.protocolFee,
      })),
    );
    const after = await balances();
    // 1% of each input: 1, 0.5 and 0.3 USDC; 0.7 USDT.
    const usdc = { filler: 99_000_000n + 49_500_000n + 29_700_000n, fee: 1_000_000n + 500_000n + 300_000n };
    const usdt = { filler: 69_300_000n, fee: 700_000n };
    // The fees stay in the escrow, owed to the fee recipient.
    expect(after.map((b, i) => b - before[i]!)).toEqual([
      usdc.filler,
      0n,
      -usdc.filler,
      usdc.fee,
      usdt.filler,
      0n,
      -usdt.filler,
      usdt.fee,
    ]);
    // Runs usdc (orders 1-2), usdt (3), usdc (4): one transfer to the filler per run, none to the fee recipient.
    const transfers = parseEventLogs({ abi: tokenAbi, eventName: 'Transfer', logs: receipt.logs });
    expect(
      transfers.map((t) => [t.address, (t.args as { to: Address }).to, (t.args as { value: bigint }).value]),
    ).toEqual([
      [usdcA().toLowerCase(), filler.address, 148_500_000n],
      [usdtA.toLowerCase(), filler.address, usdt.filler],
      [usdcA().toLowerCase(), filler.address, 29_700_000n],
    ]);

    // Anyone may pay the gas of a withdrawal; the tokens go to the fee recipient only, all it is owed at once.
    const owedUsdc = await owed(usdcA());
    const feeBalance = await balanceOf(A, usdcA(), feeRecipient);
    const withdrawal = await send(A, strangerKey, escrow(), escrowAbi, 'withdraw', [usdcA(), feeRecipient]);
    expect(events(withdrawal.logs, 'Withdrawn')).toEqual([
      { token: usdcA(), account: feeRecipient, amount: owedUsdc },
    ]);
    expect(await balanceOf(A, usdcA(), feeRecipient)).toBe(feeBalance + owedUsdc);
    expect(await owed(usdcA())).toBe(0n);
    await expectRevert(
      send(A, strangerKey, escrow(), escrowAbi, 'withdraw', [usdcA(), feeRecipient]),
      'NothingOwed',
    );
  });
});
