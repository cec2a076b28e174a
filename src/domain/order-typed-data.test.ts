import fc from 'fast-check';
import { getAddress, hashTypedData } from 'viem';
import { describe, expect, it } from 'vitest';
import type { Address } from './address.ts';
import { buildOrderTypedData, hashOrderTypedData, type OrderTerms } from './order-typed-data.ts';

const address = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => getAddress(`0x${Buffer.from(bytes).toString('hex')}`) as Address);
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
const chainId = fc.bigInt({ min: 1n, max: 2n ** 31n });
const seconds = fc.bigInt({ min: 0n, max: 2n ** 40n });

const terms: fc.Arbitrary<OrderTerms> = fc.record({
  offerer: address,
  recipient: address,
  inputToken: address,
  outputToken: address,
  inputAmount: uint256,
  outputAmount: uint256,
  inputChainId: chainId,
  outputChainId: chainId,
  filler: address,
  nonce: uint256,
  openDeadline: seconds,
  fillDeadline: seconds,
  protocolFee: uint256,
  exclusivityDeadline: seconds,
});

describe('hashOrderTypedData', () => {
  it("equals viem's generic EIP-712 hashTypedData for any order and escrow", () => {
    fc.assert(
      fc.property(terms, address, (order, escrow) => {
        const typedData = buildOrderTypedData(order, escrow);
        expect(hashOrderTypedData(typedData)).toBe(
          hashTypedData(typedData as unknown as Parameters<typeof hashTypedData>[0]),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a value that does not fit in uint256 instead of hashing something else', () => {
    const typedData = buildOrderTypedData(
      fc.sample(terms, { numRuns: 1, seed: 1 })[0] as OrderTerms,
      getAddress('0x00000000000000000000000000000000000000e5') as Address,
    );
    const tooBig = { ...typedData, message: { ...typedData.message, inputAmount: (2n ** 256n).toString() } };
    const negative = { ...typedData, message: { ...typedData.message, nonce: '-1' } };
    expect(() => hashOrderTypedData(tooBig)).toThrow();
    expect(() => hashOrderTypedData(negative)).toThrow();
  });
});
