import { getAddress, isAddress } from 'viem';
import { fieldError } from './app-error.ts';

export type Address = `0x${string}`;

/** Accepts an address in any case and returns its EIP-55 checksummed form. */
export function normalizeAddress(value: string, path: string): Address {
  if (!isAddress(value, { strict: false }))
    throw fieldError('VALIDATION_ERROR', path, 'must be a 20-byte hex address');
  return getAddress(value);
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
