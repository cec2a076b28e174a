import { concat, numberToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { lzReceiveGasOf, lzReceiveOptions } from './lz-packet.ts';

/** One type-3 option: worker id, size, then the option type and its parameters. */
const option = (worker: number, type: number, params: `0x${string}`) =>
  concat([
    numberToHex(worker, { size: 1 }),
    numberToHex((params.length - 2) / 2 + 1, { size: 2 }),
    numberToHex(type, { size: 1 }),
    params,
  ]);

describe('lzReceiveGasOf', () => {
  it('reads the gas lzReceiveOptions asks for', () => {
    expect(lzReceiveGasOf(lzReceiveOptions(165_000n))).toBe(165_000n);
  });

  it('sums every executor LZRECEIVE option, skips other workers and options, and accepts a native value', () => {
    const options = concat([
      '0x0003',
      option(1, 1, numberToHex(100_000n, { size: 16 })),
      option(2, 1, '0x00'), // a DVN option
      option(1, 3, numberToHex(7n, { size: 16 })), // an executor option that is not LZRECEIVE
      option(1, 1, concat([numberToHex(50_000n, { size: 16 }), numberToHex(1n, { size: 16 })])),
    ]);
    expect(lzReceiveGasOf(options)).toBe(150_000n);
  });

  it('reads the legacy type 1 and 2 options', () => {
    expect(lzReceiveGasOf(concat(['0x0001', numberToHex(200_000n, { size: 32 })]))).toBe(200_000n);
    expect(
      lzReceiveGasOf(
        concat(['0x0002', numberToHex(90_000n, { size: 32 }), numberToHex(1n, { size: 32 }), '0x01']),
      ),
    ).toBe(90_000n);
  });

  it('answers null for options without lzReceive gas or cut short', () => {
    expect(lzReceiveGasOf('0x')).toBeNull();
    expect(lzReceiveGasOf('0x0003')).toBeNull();
    expect(lzReceiveGasOf(concat(['0x0003', option(2, 1, '0x00')]))).toBeNull();
    expect(lzReceiveGasOf(lzReceiveOptions(0n))).toBeNull();
    expect(lzReceiveGasOf(lzReceiveOptions(1n).slice(0, -2) as `0x${string}`)).toBeNull();
    expect(lzReceiveGasOf('0x0004')).toBeNull();
  });
});
