import { createKeccak } from 'hash-wasm';

// WebAssembly Keccak: ~20× faster than viem's pure-JS one (noble), and each quote hashes two EIP-712 structs and
// each swap three. Instantiated once, when the module loads; it is synchronous from then on.
const hasher = await createKeccak(256);

/** keccak256 of `data` (the Ethereum variant, not SHA3-256), as 32 bytes. */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  hasher.init();
  hasher.update(data);
  return hasher.digest('binary');
}

/** keccak256 of `data` as a 0x-prefixed hex string. */
export function keccak256Hex(data: Uint8Array): `0x${string}` {
  hasher.init();
  hasher.update(data);
  return `0x${hasher.digest('hex')}`;
}
