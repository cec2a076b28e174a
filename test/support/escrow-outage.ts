import {
  type Address,
  createPublicClient,
  createTestClient,
  encodeAbiParameters,
  http,
  keccak256,
  maxUint256,
  numberToHex,
} from 'viem';
import type { Harness } from './harness.ts';

/** FerryEscrow's storage: `deposits` is slot 0, `owed[token][account]` (a mapping of mappings) slot 1. */
const OWED_SLOT = 1n;

/**
 * Sets what chain `chainName`'s escrow owes `account` in `token` to 2^256 − 1 (anvil_setStorageAt) and answers how to
 * put the old value back. A payout to `account` the token refuses (a paused token) is credited, and that credit now
 * overflows, so the settlement reverts: the way left to make a settle revert and then work again, since a paused or
 * blacklisting token alone no longer does (the escrow credits the payout).
 */
export async function jamEscrowCredit(
  h: Harness,
  chainName: string,
  token: Address,
  account: Address,
): Promise<() => Promise<void>> {
  const chain = h.registry.chain(chainName)!;
  const rpcUrl = h.devnets.chains.find((c) => c.name === chainName)?.rpcUrl ?? chain.rpcUrl;
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  const inner = keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [token, OWED_SLOT]),
  );
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [account, inner]));
  const address = chain.contracts.escrow;
  const pub = createPublicClient({ transport: http(rpcUrl) });
  const before = (await pub.getStorageAt({ address, slot })) ?? numberToHex(0, { size: 32 });
  await test.setStorageAt({ address, index: slot, value: numberToHex(maxUint256, { size: 32 }) });
  return () => test.setStorageAt({ address, index: slot, value: before });
}

/**
 * Takes the escrow's code away on an anvil chain (anvil_setCode; its storage stays) and answers how to put it back.
 * While it is gone every delivery to it reverts (FerryApp refuses an escrow without code), so a test can make a
 * LayerZero delivery revert and then work again. Reads of the escrow fail meanwhile, so only for tests without a
 * Ferry worker watching it.
 */
export async function takeEscrowCode(rpcUrl: string, escrow: Address): Promise<() => Promise<void>> {
  const code = await createPublicClient({ transport: http(rpcUrl) }).getCode({ address: escrow });
  if (!code || code === '0x') throw new Error(`no code at the escrow ${escrow}`);
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  await test.setCode({ address: escrow, bytecode: '0x' });
  return () => test.setCode({ address: escrow, bytecode: code });
}
