import {
  type Address,
  createPublicClient,
  createTestClient,
  encodeAbiParameters,
  type Hex,
  http,
  keccak256,
  maxUint256,
  numberToHex,
} from 'viem';

/** FerryEscrow's storage: `deposits` is slot 0, `owed[token][account]` (a mapping of mappings) slot 1. */
const OWED_SLOT = 1n;

function owedSlot(token: Address, account: Address): Hex {
  const inner = keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [token, OWED_SLOT]),
  );
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [account, inner]));
}

/**
 * Sets what the escrow owes `account` in `token` to 2^256 − 1 on an anvil chain (anvil_setStorageAt) and answers how
 * to put the old value back. A payout to `account` that the token refuses (a paused token) is credited, and that
 * credit now overflows, so the settlement reverts: the one way left to make a settle revert and then work again,
 * since a paused or blacklisting token alone no longer does (the escrow credits the payout).
 */
export async function jamEscrowCredit(
  rpcUrl: string,
  escrow: Address,
  token: Address,
  account: Address,
): Promise<() => Promise<void>> {
  const test = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  const slot = owedSlot(token, account);
  const before = await test.request({
    method: 'eth_getStorageAt',
    params: [escrow, slot, 'latest'],
  } as never);
  await test.setStorageAt({ address: escrow, index: slot, value: numberToHex(maxUint256, { size: 32 }) });
  return () => test.setStorageAt({ address: escrow, index: slot, value: before as Hex });
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
