import { type Address, encodeFunctionData, type Hex, parseEventLogs, toFunctionSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { proveOptions } from '../../src/chains/settlement/prove-options.ts';
import {
  A,
  appAbi,
  B,
  deliver,
  deployerKey,
  escrow,
  escrowAbi,
  fillAndProve,
  filler,
  fillerKey,
  GRACE,
  hashOrder,
  increaseTime,
  makeOrder,
  offerer,
  prove,
  read,
  type Side,
  send,
  sign,
  startSides,
  status,
  stopSides,
  strangerKey,
} from '../../test/support/contract-sides.ts';

/**
 * The escrow's and the fill contract's reentrancy guards (transient storage), against a token that calls back
 * into them from inside its own transfer, as a malicious token would: each call back is refused with
 * OpenZeppelin's ReentrancyGuardReentrantCall() before it does anything, while the outer call completes.
 */
beforeAll(startSides, 180_000);
afterAll(stopSides);

const tokenAbi = loadArtifact('ReentrantToken').abi;
const REENTRANCY = toFunctionSelector('ReentrancyGuardReentrantCall()');

async function deployReentrantToken(side: Side, holders: Address[]): Promise<Address> {
  const { abi, bytecode } = loadArtifact('ReentrantToken');
  const hash = await side.wallet(deployerKey).deployContract({ abi, bytecode });
  const { contractAddress } = await side.pub.waitForTransactionReceipt({ hash });
  const token = contractAddress as Address;
  for (const holder of holders) await send(side, deployerKey, token, abi, 'mint', [holder, 10n ** 12n]);
  return token;
}

const arm = (side: Side, token: Address, target: Address, call: Hex) =>
  send(side, deployerKey, token, tokenAbi, 'arm', [target, call]);

/** How the token's call back went: it happened, and it reverted with ReentrancyGuardReentrantCall(). */
async function expectRefusedReentry(side: Side, token: Address) {
  expect(await read(side, token, tokenAbi, 'reentered')).toBe(true);
  expect(await read(side, token, tokenAbi, 'reentrySucceeded')).toBe(false);
  expect(await read(side, token, tokenAbi, 'reentryAnswer')).toBe(REENTRANCY);
}

const escrowCall = (functionName: 'deposit' | 'refund', args: unknown[]) =>
  encodeFunctionData({ abi: escrowAbi, functionName, args } as never);

describe('reentrancy guards', () => {
  it('a deposit whose token calls deposit again: the inner deposit is refused, the outer one locks its input', async () => {
    const token = await deployReentrantToken(A, [offerer.address]);
    const outer = await makeOrder({ inputToken: token });
    const inner = await makeOrder({ inputToken: token });
    await arm(A, token, escrow(), escrowCall('deposit', [inner, await sign(inner)]));
    await send(A, strangerKey, escrow(), escrowAbi, 'deposit', [outer, await sign(outer)]);
    await expectRefusedReentry(A, token);
    expect(await status(hashOrder(outer))).toBe(1);
    expect(await status(hashOrder(inner))).toBe(0);
  });

  it('a refund whose token calls refund for another order: refused, that order stays locked', async () => {
    const token = await deployReentrantToken(A, [offerer.address]);
    const [first, second] = [await makeOrder({ inputToken: token }), await makeOrder({ inputToken: token })];
    for (const order of [first, second])
      await send(A, strangerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]);
    await increaseTime(A, 3601 + GRACE);
    await arm(A, token, escrow(), escrowCall('refund', [second]));
    await send(A, strangerKey, escrow(), escrowAbi, 'refund', [first]);
    await expectRefusedReentry(A, token);
    expect(await status(hashOrder(first))).toBe(3);
    expect(await status(hashOrder(second))).toBe(1);
  });

  it('a settlement whose token calls refund: refused during the release, the order settles to its filler', async () => {
    const token = await deployReentrantToken(A, [offerer.address]);
    const order = await makeOrder({ inputToken: token });
    const other = await makeOrder({ inputToken: token });
    for (const o of [order, other])
      await send(A, strangerKey, escrow(), escrowAbi, 'deposit', [o, await sign(o)]);
    const { usdt } = B.tokens;
    await send(B, fillerKey, usdt, loadArtifact('TestStablecoin').abi, 'approve', [
      B.ferry.app,
      order.outputAmount,
    ]);
    await send(B, fillerKey, B.ferry.app, appAbi, 'fill', [order, escrow()]);
    const { packet } = await prove([order]);
    // Past the other order's refund time, so only the guard stands between the call back and a refund.
    await increaseTime(A, 3601 + GRACE);
    await arm(A, token, escrow(), escrowCall('refund', [other]));
    await deliver(packet);
    await expectRefusedReentry(A, token);
    expect(await status(hashOrder(order))).toBe(2);
    expect(await status(hashOrder(other))).toBe(1);
    expect(await read(A, token, tokenAbi, 'balanceOf', [filler.address])).toBe(order.inputAmount);
  });

  it('a fill whose output token calls fill again: the inner fill is refused, the outer one is recorded', async () => {
    const token = await deployReentrantToken(B, [filler.address]);
    const outer = await makeOrder({ outputToken: token });
    const inner = await makeOrder({ outputToken: token });
    await arm(
      B,
      token,
      B.ferry.app,
      encodeFunctionData({ abi: appAbi, functionName: 'fill', args: [inner, escrow()] }),
    );
    await send(B, fillerKey, B.ferry.app, appAbi, 'fill', [outer, escrow()]);
    await expectRefusedReentry(B, token);
    const fillTime = (hash: Hex) => read<bigint>(B, B.ferry.app, appAbi, 'fillTimes', [hash]);
    expect(await fillTime(hashOrder(outer))).toBeGreaterThan(0n);
    expect(await fillTime(hashOrder(inner))).toBe(0n);
  });

  it('a fillAndProve whose output token calls prove: refused, the outer fill is proven once', async () => {
    const token = await deployReentrantToken(B, [filler.address]);
    const earlier = await makeOrder({ outputToken: token });
    await send(B, fillerKey, B.ferry.app, appAbi, 'fill', [earlier, escrow()]);
    const order = await makeOrder({ outputToken: token });
    // The guard answers first: the call back is refused with ReentrancyGuardReentrantCall(), not with the missing fee's error.
    const options = proveOptions(1);
    await arm(
      B,
      token,
      B.ferry.app,
      encodeFunctionData({ abi: appAbi, functionName: 'prove', args: [[earlier], escrow(), options] }),
    );
    const { receipt } = await fillAndProve(order);
    await expectRefusedReentry(B, token);
    const proofs = parseEventLogs({ abi: appAbi, eventName: 'ProofSent', logs: receipt.logs });
    expect(proofs.map((p) => (p.args as { orderHashes: readonly Hex[] }).orderHashes)).toEqual([
      [hashOrder(order)],
    ]);
  });
});
