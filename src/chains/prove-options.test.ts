import { encodeAbiParameters, parseAbiParameters, size, zeroAddress, zeroHash } from 'viem';
import { describe, expect, it } from 'vitest';
import { LZ_DEVNET_MAX_MESSAGE_SIZE } from './layerzero/lz-oapp-config.ts';
import { MAX_PROOFS_PER_MESSAGE, proveOptions, proveReceiveGas, tokenRunsOf } from './prove-options.ts';

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

describe('the lzReceive gas a proof asks for', () => {
  it('adds a run of payouts for each change of input token', () => {
    const usdc = '0x00000000000000000000000000000000000000aa';
    const usdt = '0x00000000000000000000000000000000000000bb';
    const orders = [usdc, usdc.toUpperCase().replace('0X', '0x'), usdt, usdc].map((inputToken) => ({
      inputToken,
    }));
    expect(tokenRunsOf(orders)).toBe(3);
    expect(tokenRunsOf([])).toBe(0);
    expect(proveReceiveGas(4, 3) - proveReceiveGas(4, 1)).toBe(120_000n);
    expect(() => proveOptions(2, 3)).toThrow(RangeError);
    expect(() => proveOptions(2, 0)).toThrow(RangeError);
  });
});
