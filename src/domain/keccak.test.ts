import fc from 'fast-check';
import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { keccak256Bytes, keccak256Hex } from './keccak.ts';

describe('keccak256', () => {
  it('matches viem on random inputs of every length around the 136-byte block', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), (data) => {
        expect(keccak256Hex(data)).toBe(keccak256(data));
        expect(keccak256Bytes(data)).toEqual(keccak256(data, 'bytes'));
      }),
      { numRuns: 300 },
    );
  });

  it('returns bytes of its own: a later hash does not change an earlier result', () => {
    const first = keccak256Bytes(new Uint8Array([1]));
    const copy = Uint8Array.from(first);
    keccak256Bytes(new Uint8Array([2]));
    expect(first).toEqual(copy);
  });

  it('gives the well-known hash of the empty input', () => {
    expect(keccak256Hex(new Uint8Array())).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
  });
});
