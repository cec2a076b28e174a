import { encodeAbiParameters, size, zeroAddress, zeroHash } from 'viem';
import { describe, expect, it } from 'vitest';
import { LZ_DEVNET_MAX_MESSAGE_SIZE } from '../layerzero/lz-oapp-config.ts';
import {
  MAX_PROOFS_PER_MESSAGE,
  PROOF_MESSAGE,
  proveOptions,
  proveReceiveGas,
  tokenRunsOf,
} from './prove-options.ts';

const messageOf = (proofs: number) =>
  encodeAbiParameters(PROOF_MESSAGE, [
    zeroAddress,
    zeroAddress,
    Array.from({ length: proofs }, () => ({
      orderHash: zeroHash,
      inputToken: zeroAddress,
      inputAmount: 1n,
      protocolFee: 0n,
      fillDeadline: 2n,
      exclusiveFiller: zeroAddress,
      exclusivityDeadline: 0n,
      fillTime: 1n,
    })),
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
