import type { FastifyBaseLogger } from 'fastify';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import { NonceConflictError } from '../chains/transactions/tx-sender.ts';
import { isTerminalOrderStatus } from '../domain/lifecycle.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { orderStatuses } from '../store/ledgers/settlement-store.ts';
import { linkedOrders } from '../store/ledgers/shared-actions-store.ts';
import type { WorkerTransactions } from './chain-action-executor.ts';

/** Drives the relayer's recorded transactions on every registry chain, apart from order status. */
export interface TransactionDriver {
  /**
   * Every transaction the relayer has written down is driven to its end here, whatever its order did meanwhile:
   * broadcast again, replaced with higher fees, or, once its order has ended, cancelled (its nonce spent on a
   * zero-value self-transfer), so a terminal order never strands a nonce; then a nonce gap is repaired.
   */
  driveAll(): Promise<void>;
}

export function createTransactionDriver(deps: {
  readonly database: FerryDatabase;
  readonly registry: ChainRegistry;
  readonly transactions: WorkerTransactions;
  readonly relayer: PrivateKeyAccount;
  readonly log: FastifyBaseLogger;
}): TransactionDriver {
  const { database, relayer, log } = deps;
  return {
    async driveAll() {
      for (const name of deps.registry.chains.map((c) => c.name)) {
        await deps.transactions.drive({
          chain: name,
          account: relayer,
          async abandoned(open) {
            const mine = open.filter((a) => a.kind !== 'nonce-gap');
            // An action serving several orders (one prove of a route) is wanted while any of them still is.
            const linked = await linkedOrders(database.db, mine);
            const served = (a: (typeof mine)[number]) => [a.subject, ...(linked.get(a.id) ?? [])];
            const statuses = await orderStatuses(database.db, [...new Set(mine.flatMap(served))]);
            return new Set(
              mine
                .filter((a) =>
                  served(a).every((id) => isTerminalOrderStatus(statuses.get(id) ?? 'completed')),
                )
                .map((a) => a.id),
            );
          },
          guard: async () => true,
          onError(action, error) {
            if (error instanceof NonceConflictError) return;
            log.warn(
              { err: error, chain: name, actionId: action?.id, kind: action?.kind, orderId: action?.subject },
              'driving a recorded transaction failed; will retry',
            );
          },
        });
      }
    },
  };
}
