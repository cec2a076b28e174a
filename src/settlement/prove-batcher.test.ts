import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { MAX_PROOFS_PER_MESSAGE } from '../chains/prove-options.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import type { OrderStatus } from '../domain/lifecycle.ts';
import type { Order } from '../domain/records.ts';
import { type Deferred, proveBatches } from './prove-batcher.ts';

const LP_A = '0x00000000000000000000000000000000000000a1' as Address;
const LP_B = '0x00000000000000000000000000000000000000b2' as Address;
const USDC = '0x0000000000000000000000000000000000000c0c' as Address;
const USDT = '0x0000000000000000000000000000000000000d0d' as Address;

let next = 0;
function deferredProve(
  over: {
    filler?: Address;
    inputChainId?: bigint;
    outputChain?: string;
    status?: OrderStatus;
    token?: Address;
  } = {},
): Deferred {
  const id = `order-${next++}`;
  const inputChainId = over.inputChainId ?? 31337n;
  // The grouping reads only the route fields; the rest of an Order plays no part in it.
  const order = {
    id,
    outputChain: over.outputChain ?? 'chain-b',
    inputChain: `chain-${inputChainId}`,
    status: over.status ?? 'filled',
  } as Order;
  const terms = {
    filler: over.filler ?? LP_A,
    inputChainId,
    outputChainId: 31338n,
    inputToken: over.token ?? USDC,
  } as OrderTerms;
  return { order, terms };
}

const ids = (batches: Deferred[][]) => batches.map((b) => b.map((d) => d.order.id).sort());

describe('proveBatches', () => {
  it('never puts two fillers in one message (FerryApp reverts MixedBatch)', () => {
    const a1 = deferredProve({ filler: LP_A });
    const b1 = deferredProve({ filler: LP_B });
    const a2 = deferredProve({ filler: LP_A });
    // The same filler in another letter case is the same address.
    const b2 = deferredProve({ filler: LP_B.toUpperCase().replace('0X', '0x') as Address });
    const batches = proveBatches([a1, b1, a2, b2]);
    expect(ids(batches)).toEqual([[a1.order.id, a2.order.id].sort(), [b1.order.id, b2.order.id].sort()]);
    for (const batch of batches) expect(new Set(batch.map((d) => d.terms.filler.toLowerCase())).size).toBe(1);
  });

  it('keeps input chains (escrows), output chains and statuses apart', () => {
    const base = deferredProve();
    const otherEscrow = deferredProve({ inputChainId: 1n });
    const otherOutput = deferredProve({ outputChain: 'chain-c' });
    const otherStatus = deferredProve({ status: 'refunded' });
    const same = deferredProve();
    const batches = proveBatches([base, otherEscrow, otherOutput, otherStatus, same]);
    expect(batches).toHaveLength(4);
    expect(ids(batches)).toContainEqual([base.order.id, same.order.id].sort());
  });

  it('splits a route at the message size and puts equal input tokens next to each other', () => {
    const list = Array.from({ length: MAX_PROOFS_PER_MESSAGE + 2 }, (_, i) =>
      deferredProve({ token: i % 2 ? USDT : USDC }),
    );
    const batches = proveBatches(list);
    expect(batches.map((b) => b.length)).toEqual([MAX_PROOFS_PER_MESSAGE, 2]);
    const tokens = batches.flat().map((d) => d.terms.inputToken);
    const changes = tokens.filter((t, i) => i > 0 && t !== tokens[i - 1]).length;
    expect(changes).toBe(1);
  });
});
