// GENERATED FILE: do not edit. Compiled from src/domain/order-search-shape.ts by
// scripts/generate-explorer-modules.ts (`npm run generate:explorer`); test/explorer-search-shape.test.ts
// fails when it is stale.
/**
 * The shape rules of a public search text, with no imports: the API's parser (order-search.ts) and the explorer
 * (which gets this file compiled to src/explorer/order-search-shape.js) tell a search apart by the same rules.
 * `0x` + 40 hex digits is an address, `0x` + 64 hex digits a blockchain order id or a transaction hash, anything
 * else an order id. `value` is the text trimmed, in the case it was typed.
 */
export type SearchShape = {
    readonly kind: 'address' | 'hash' | 'orderId';
    readonly value: string;
} | {
    readonly kind: 'invalid';
    readonly reason: 'hex-length' | 'not-an-id';
};
export declare function orderSearchShape(text: string): SearchShape;
