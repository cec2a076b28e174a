import { encodeAbiParameters, parseAbiParameters, size, zeroAddress, zeroHash } from 'viem';
import { describe, expect, it } from 'vitest';
import { LZ_DEVNET_MAX_MESSAGE_SIZE } from './layerzero/lz-oapp-config.ts';
import { MAX_PROOFS_PER_MESSAGE, proveOptions } from './proof-message-chain.ts';

/** FerryApp's proof message as _sendProofs encodes it. */
const MESSAGE = parseAbiParameters(
  'address, address, (bytes32, address, uint256, uint256, uint256, uint256)[]',
);
const messageOf = (proofs: number) =>
  encodeAbiParameters(MESSAGE, [
    zeroAddress,
    zeroAddress,
    Array.from({ length: proofs }, () => [zeroHash, zeroAddress, 1n, 0n, 2n, 1n] as const),
  ]);

describe('the size of a proof message', () => {
  it('MAX_PROOFS_PER_MESSAGE fills fit the executor’s message size, one more does not', () => {
    expect(size(messageOf(MAX_PROOFS_PER_MESSAGE))).toBeLessThanOrEqual(LZ_DEVNET_MAX_MESSAGE_SIZE);
    expect(size(messageOf(MAX_PROOFS_PER_MESSAGE + 1))).toBeGreaterThan(LZ_DEVNET_MAX_MESSAGE_SIZE);
  });

  it('proveOptions refuses a batch the message could not carry', () => {
    expect(() => proveOptions(MAX_PROOFS_PER_MESSAGE)).not.toThrow();
    expect(() => proveOptions(MAX_PROOFS_PER_MESSAGE + 1)).toThrow(RangeError);
    expect(() => proveOptions(0)).toThrow(RangeError);
  });
});
