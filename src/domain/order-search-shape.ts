/**
 * The shape rules of a public search text, with no imports: the API's parser (order-search.ts) and the explorer
 * (which gets this file compiled to src/explorer/order-search-shape.js) tell a search apart by the same rules.
 * `0x` + 40 hex digits is an address, `0x` + 64 hex digits a blockchain order id or a transaction hash, anything
 * else an order id. `value` is the text trimmed, in the case it was typed.
 */
export type SearchShape =
  | { readonly kind: 'address' | 'hash' | 'orderId'; readonly value: string }
  | { readonly kind: 'invalid'; readonly reason: 'hex-length' | 'not-an-id' };

const HEX = /^0x[0-9a-fA-F]*$/;
const ORDER_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function orderSearchShape(text: string): SearchShape {
  const value = text.trim();
  if (HEX.test(value)) {
    if (value.length === 42) return { kind: 'address', value };
    if (value.length === 66) return { kind: 'hash', value };
    return { kind: 'invalid', reason: 'hex-length' };
  }
  if (!ORDER_ID.test(value)) return { kind: 'invalid', reason: 'not-an-id' };
  return { kind: 'orderId', value };
}
