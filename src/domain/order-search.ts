import { type Address, normalizeAddress } from './address.ts';
import { fieldError } from './app-error.ts';

/**
 * What a public search text names, told apart by its shape: `0x` + 40 hex digits is an address, `0x` + 64 hex
 * digits a blockchain order id or a transaction hash (one lookup covers both: they cannot collide), anything else
 * an order id. Hashes are compared in lower case, as the chains and the store write them.
 */
export type OrderSearch =
  | { readonly kind: 'address'; readonly address: Address }
  | { readonly kind: 'hash'; readonly hash: `0x${string}` }
  | { readonly kind: 'orderId'; readonly id: string };

const HEX = /^0x[0-9a-fA-F]*$/;
const ORDER_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function parseOrderSearch(text: string, path: string): OrderSearch {
  const value = text.trim();
  if (HEX.test(value)) {
    if (value.length === 42) return { kind: 'address', address: normalizeAddress(value, path) };
    if (value.length === 66) return { kind: 'hash', hash: value.toLowerCase() as `0x${string}` };
    throw fieldError(
      'VALIDATION_ERROR',
      path,
      'a 0x value must be an address (40 hex digits) or an order id or tx hash (64 hex digits)',
    );
  }
  if (!ORDER_ID.test(value)) {
    throw fieldError(
      'VALIDATION_ERROR',
      path,
      'must be an order id, a blockchain order id, a transaction hash or an address',
    );
  }
  return { kind: 'orderId', id: value };
}

/** A stable text for one search (cache keys). */
export function searchKey(search: OrderSearch | null): string {
  if (search === null) return '*';
  if (search.kind === 'address') return `a:${search.address}`;
  if (search.kind === 'hash') return `h:${search.hash}`;
  return `o:${search.id}`;
}
