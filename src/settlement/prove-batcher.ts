import type { FastifyBaseLogger } from 'fastify';
import type { PrivateKeyAccount } from 'viem/accounts';
import { MAX_PROOFS_PER_MESSAGE, proveOptions, tokenRunsOf } from '../chains/settlement/prove-options.ts';
import type { SettlementChain } from '../chains/settlement/settlement-chain.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import type { Order } from '../domain/records.ts';
import type { ChainActionExecutor } from './chain-action-executor.ts';

/**
 * The worker's fallback proves of one pass, in batches: an order whose fill nobody proved within proveAfter is
 * set aside (`defer`) while the pass walks the others, and at its end (`flush`) one FerryApp.prove(orders) goes out
 * per output chain and input chain (the input chain's escrow), up to MAX_PROOFS_PER_MESSAGE orders, its fee quoted
 * for the batch and its lzReceive gas sized for it (prove-options.ts). The action is the first order's; the others
 * are linked to it in the same write, before it is broadcast (shared-actions-store.ts), so each follows it from
 * then on like its own. A batch the chain or the database refuses is sent again order by order.
 */
export interface ProveBatcher {
  /** `filler`: the filler of record, whom the message names (FerryApp batches one per message). */
  defer(order: Order, terms: OrderTerms, filler: string): void;
  /** Sends what was set aside; returns the orders whose prove could not be sent, so their retry backs off. */
  flush(): Promise<ReadonlySet<string>>;
}

export type Deferred = { readonly order: Order; readonly terms: OrderTerms; readonly filler: string };

/**
 * The messages the deferred proves go out in: FerryApp refuses a batch whose orders differ in filler or input chain
 * (MixedBatch; the input chain names the escrow the proof goes to), and one message has one output chain and proves
 * orders of one status. Equal input tokens sit next to each other: the escrow pays one transfer per run.
 */
export function proveBatches(deferred: readonly Deferred[]): Deferred[][] {
  const routes = new Map<string, Deferred[]>();
  for (const d of deferred) {
    const { order, terms } = d;
    const route = [order.outputChain, terms.inputChainId, d.filler.toLowerCase(), order.status].join('|');
    routes.set(route, [...(routes.get(route) ?? []), d]);
  }
  const batches: Deferred[][] = [];
  for (const list of routes.values()) {
    list.sort((a, b) => a.terms.inputToken.toLowerCase().localeCompare(b.terms.inputToken.toLowerCase()));
    for (let i = 0; i < list.length; i += MAX_PROOFS_PER_MESSAGE)
      batches.push(list.slice(i, i + MAX_PROOFS_PER_MESSAGE));
  }
  return batches;
}

export function createProveBatcher(deps: {
  readonly chain: SettlementChain;
  readonly actions: ChainActionExecutor;
  readonly relayer: PrivateKeyAccount;
  readonly log: FastifyBaseLogger;
}): ProveBatcher {
  const { chain, actions, log } = deps;
  let deferred = new Map<string, Deferred>();

  async function send(batch: readonly Deferred[]): Promise<void> {
    const first = batch[0] as Deferred;
    const terms = batch.map((d) => d.terms);
    const options = proveOptions(terms.length, tokenRunsOf(terms));
    const fee = await chain.quoteProve(first.order.outputChain, terms, options);
    const outcome = await actions.execute({
      orderId: first.order.id,
      others: batch.slice(1).map((d) => d.order.id),
      kind: 'prove',
      call: chain.proveCall(first.order.outputChain, terms, fee, options),
      account: deps.relayer,
      expectStatus: first.order.status,
    });
    log.info(
      { orderIds: batch.map((d) => d.order.id), chain: first.order.outputChain, status: outcome.status },
      batch.length > 1 ? 'fallback prove of several orders in one message' : 'fallback prove',
    );
  }

  return {
    defer(order, terms, filler) {
      deferred.set(order.id, { order, terms, filler });
    },

    async flush() {
      const batches = proveBatches([...deferred.values()]);
      deferred = new Map();
      const failed = new Set<string>();
      const fail = (d: Deferred, err: unknown) => {
        log.warn({ err, orderId: d.order.id }, 'fallback prove failed; will retry');
        failed.add(d.order.id);
      };
      for (const batch of batches) {
        try {
          await send(batch);
        } catch (error) {
          if (batch.length === 1) {
            fail(batch[0] as Deferred, error);
            continue;
          }
          log.warn({ err: error, orders: batch.length }, 'batched fallback prove failed; proving one by one');
          for (const one of batch) await send([one]).catch((e) => fail(one, e));
        }
      }
      return failed;
    },
  };
}
