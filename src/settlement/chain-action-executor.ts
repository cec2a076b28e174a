import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ContractCall, SettlementChain } from '../chains/settlement-chain.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import type { OrderStatus } from '../domain/lifecycle.ts';
import type { FerryDatabase } from '../store/database.ts';
import {
  allocateNonce,
  type ChainActionKind,
  findChainAction,
  insertChainAction,
  mayRecord,
  setChainActionStatus,
} from '../store/settlement-store.ts';
import type { FaultInjector } from './fault-injector.ts';

export type ActionOutcome =
  | { readonly status: 'stale' }
  | { readonly status: 'success'; readonly txHash: Hex }
  | { readonly status: 'reverted'; readonly txHash: Hex }
  | { readonly status: 'pending'; readonly txHash: Hex };

const RECEIPT_WAIT_MS = 15_000;

/**
 * Sends the one transaction of kind `kind` for an order, crash-safely: the signed transaction is written
 * down (with its nonce and hash) before it is broadcast. If a record exists, the very same bytes are
 * re-broadcast, which the chain can only ever execute once; a new transaction is never made for it.
 */
export function createChainActionExecutor(deps: {
  database: FerryDatabase;
  chain: SettlementChain;
  clock: Clock;
  faults: FaultInjector;
}) {
  const { database, chain, clock, faults } = deps;

  async function awaitReceipt(chainName: string, hash: Hex) {
    const deadline = Date.now() + RECEIPT_WAIT_MS;
    for (;;) {
      const status = await chain.receipt(chainName, hash);
      if (status !== null || Date.now() > deadline) return status;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function finish(
    actionId: string,
    chainName: string,
    hash: Hex,
    kind: string,
  ): Promise<ActionOutcome> {
    const status = await awaitReceipt(chainName, hash);
    if (status === null) return { status: 'pending', txHash: hash };
    await setChainActionStatus(
      database.db,
      actionId,
      status === 'success' ? 'confirmed' : 'reverted',
      clock.now().getTime(),
    );
    faults.at(`after-confirm:${kind}`);
    return { status, txHash: hash };
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
      if (existing) {
        if (existing.status === 'confirmed') return { status: 'success', txHash: existing.tx_hash as Hex };
        if (existing.status === 'reverted') return { status: 'reverted', txHash: existing.tx_hash as Hex };
        await chain.broadcast(existing.chain, { raw: existing.raw_tx as Hex, hash: existing.tx_hash as Hex });
        return finish(existing.id, existing.chain, existing.tx_hash as Hex, kind);
      }

      faults.at(`before-record:${kind}`);
      const [chainNonce, prepared] = await Promise.all([
        chain.pendingNonce(call.chain, account.address),
        chain.prepare(call, account.address),
      ]);
      const now = clock.now().getTime();
      const recorded = await database.transaction(async (trx) => {
        if (!(await mayRecord(trx, database.dialect, orderId, kind, expectStatus))) return null;
        const nonce = await allocateNonce(trx, call.chain, account.address, chainNonce);
        const tx = await chain.sign(call, account, nonce, prepared);
        const id = newId('act', new Date(now));
        await insertChainAction(trx, {
          id,
          order_id: orderId,
          kind,
          chain: call.chain,
          from_address: account.address,
          nonce,
          tx_hash: tx.hash,
          raw_tx: tx.raw,
          status: 'recorded',
          created_at: now,
          updated_at: now,
        });
        return { id, tx };
      });
      if (!recorded) return { status: 'stale' };
      faults.at(`after-record:${kind}`);
      await chain.broadcast(call.chain, recorded.tx);
      faults.at(`after-send:${kind}`);
      return finish(recorded.id, call.chain, recorded.tx.hash, kind);
    },
  };
}

export type ChainActionExecutor = ReturnType<typeof createChainActionExecutor>;
