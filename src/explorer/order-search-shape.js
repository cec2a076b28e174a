// @ts-check
// GENERATED FILE: do not edit. Compiled from src/domain/order-search-shape.ts by
// scripts/generate-explorer-modules.ts (`npm run generate:explorer`); test/explorer-search-shape.test.ts
// fails when it is stale.
const HEX = /^0x[0-9a-fA-F]*$/;
const ORDER_ID = /^[A-Za-z0-9_-]{1,64}$/;
export function orderSearchShape(text) {
    const value = text.trim();
    if (HEX.test(value)) {
        if (value.length === 42)
            return { kind: 'address', value };
        if (value.length === 66)
            return { kind: 'hash', value };
        return { kind: 'invalid', reason: 'hex-length' };
    }
    if (!ORDER_ID.test(value))
        return { kind: 'invalid', reason: 'not-an-id' };
    return { kind: 'orderId', value };
}
