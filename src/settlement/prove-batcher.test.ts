import pino from 'pino';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { MAX_PROOFS_PER_MESSAGE } from '../chains/settlement/prove-options.ts';
import type { SettlementChain } from '../chains/settlement/settlement-chain.ts';
import type { OrderStatus } from '../domain/lifecycle.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import type { Order } from '../domain/records.ts';
import type { ChainActionExecutor } from './chain-action-executor.ts';
import { createProveBatcher, type Deferred, proveBatches } from './prove-batcher.ts';

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
  return { order, terms, filler: terms.filler };
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

describe('ProveBatcher.flush', () => {
  /** A chain whose node refuses to quote any message holding one of `refused` (an estimate revert, an outage). */
  function batcherRefusing(refused: readonly Deferred[], sent: string[][]) {
    const broken = new Set(refused.map((d) => d.terms));
    const chain = {
      async quoteProve(_chain: string, terms: readonly OrderTerms[]) {
        if (terms.some((t) => broken.has(t))) throw new Error('execution reverted');
        return 1n;
      },
      proveCall: (chain: string) => ({ chain, to: LP_A, data: '0x' as const }),
    } as unknown as SettlementChain;
    const actions = {
      async execute(input: { orderId: string; others: readonly string[] }) {
        sent.push([input.orderId, ...input.others].sort());
        return { status: 'pending', txHash: '0x01' };
      },
    } as unknown as ChainActionExecutor;
    const relayer = privateKeyToAccount(generatePrivateKey());
    return createProveBatcher({ chain, actions, relayer, log: pino({ level: 'silent' }) });
  }

  it('reports the orders whose prove could not be sent, alone or after a refused batch', async () => {
    const good = deferredProve();
    const bad = deferredProve();
    const alone = deferredProve({ filler: LP_B });
    const sent: string[][] = [];
    const batcher = batcherRefusing([bad, alone], sent);
    for (const d of [good, bad, alone]) batcher.defer(d.order, d.terms, d.filler);
    const failed = await batcher.flush();
    expect([...failed].sort()).toEqual([bad.order.id, alone.order.id].sort());
    // The refused batch went out again order by order: the good one is proven, not reported.
    expect(sent).toEqual([[good.order.id]]);
    // Nothing stays set aside for the next pass's flush.
    expect(await batcher.flush()).toEqual(new Set());
  });

  it('reports nothing when every batch goes out', async () => {
    const sent: string[][] = [];
    const batcher = batcherRefusing([], sent);
    const list = [deferredProve(), deferredProve()];
    for (const d of list) batcher.defer(d.order, d.terms, d.filler);
    expect((await batcher.flush()).size).toBe(0);
    expect(sent).toEqual([list.map((d) => d.order.id).sort()]);
  });
});
