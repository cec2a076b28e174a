import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ContractCall } from '../chains/settlement-chain.ts';
import type { TransactionClient } from '../chains/transaction-client.ts';
import type { OrderStatus } from '../domain/lifecycle.ts';
import type { FerryDatabase } from '../store/database.ts';
import { type ChainActionKind, findChainAction, mayRecord } from '../store/settlement-store.ts';
import type { FaultInjector } from './fault-injector.ts';

export type ActionOutcome =
  | { readonly status: 'stale' }
  | { readonly status: 'success'; readonly txHash: Hex }
  | { readonly status: 'reverted'; readonly txHash: Hex }
  | { readonly status: 'pending'; readonly txHash: Hex };

/**
 * The one transaction of kind `kind` for an order, sent through the chain's transaction client: it is
 * written down before it is broadcast, replaced with higher fees (same nonce) when it is not mined in time,
 * and counts only at the chain's confirmations. A call never waits for blocks for long: `pending` means
 * "look again on the next pass". Throws NonceConflictError when the action's nonce was taken by a
 * transaction outside Ferry's records (the action is then abandoned, reported once).
 */
export function createChainActionExecutor(deps: {
  database: FerryDatabase;
  transactions: TransactionClient;
  faults: FaultInjector;
}) {
  const { database, transactions, faults } = deps;

  function confirmed(kind: ChainActionKind, outcome: ActionOutcome): ActionOutcome {
    if (outcome.status === 'success' || outcome.status === 'reverted') faults.at(`after-confirm:${kind}`);
    return outcome;
  }

  return {
    /** The recorded action of this kind, if any: what reconciliation compares with the chain. */
    recorded: (orderId: string, kind: ChainActionKind) => findChainAction(database.db, orderId, kind),

    /**
     * `expectStatus` is the order status this action belongs to: the action is written down only if the order
     * still has it (checked under the order's row lock on PostgreSQL), and a settle or refund only if no other
     * release of the escrow was written down before. Otherwise the outcome is `stale` and nothing is sent.
     */
    async execute(
      orderId: string,
      kind: ChainActionKind,
      call: ContractCall,
      account: PrivateKeyAccount,
      expectStatus: OrderStatus,
    ): Promise<ActionOutcome> {
      const existing = await findChainAction(database.db, orderId, kind);
      if (existing) return confirmed(kind, await transactions.advance(existing, account));
      faults.at(`before-record:${kind}`);
      const outcome = await transactions.submit({
        orderId,
        kind,
        call,
        account,
        guard: (trx) => mayRecord(trx, database.dialect, orderId, kind, expectStatus),
      });
      return outcome ? confirmed(kind, outcome) : { status: 'stale' };
    },
  };
}

export type ChainActionExecutor = ReturnType<typeof createChainActionExecutor>;
