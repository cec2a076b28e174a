import { type Address, normalizeAddress } from './address.ts';
import { fieldError } from './app-error.ts';
import { orderSearchShape } from './order-search-shape.ts';

/**
 * What a public search text names, told apart by its shape (order-search-shape.ts): an address, a blockchain
 * order id or a transaction hash (one lookup covers both: they cannot collide), or an order id. Hashes are
 * compared in lower case, as the chains and the store write them.
 */
export type OrderSearch =
  | { readonly kind: 'address'; readonly address: Address }
  | { readonly kind: 'hash'; readonly hash: `0x${string}` }
  | { readonly kind: 'orderId'; readonly id: string };

export function parseOrderSearch(text: string, path: string): OrderSearch {
  const shape = orderSearchShape(text);
  switch (shape.kind) {
    case 'address':
      return { kind: 'address', address: normalizeAddress(shape.value, path) };
    case 'hash':
      return { kind: 'hash', hash: shape.value.toLowerCase() as `0x${string}` };
    case 'orderId':
      return { kind: 'orderId', id: shape.value };
    case 'invalid':
      throw fieldError(
        'VALIDATION_ERROR',
        path,
        shape.reason === 'hex-length'
          ? 'a 0x value must be an address (40 hex digits) or an order id or tx hash (64 hex digits)'
          : 'must be an order id, a blockchain order id, a transaction hash or an address',
      );
  }
}

/** A stable text for one search (cache keys). */
export function searchKey(search: OrderSearch | null): string {
  if (search === null) return '*';
  if (search.kind === 'address') return `a:${search.address}`;
  if (search.kind === 'hash') return `h:${search.hash}`;
  return `o:${search.id}`;
}
