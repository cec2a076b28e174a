import type { ContractCall } from '../chains/settlement/contract-call.ts';
import type { SettlementChain } from '../chains/settlement/settlement-chain.ts';
import type { OrderTerms } from '../domain/order-typed-data.ts';
import type { Order } from '../domain/records.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { findSwapPermit } from '../store/tables/swap-permits-store.ts';

/**
 * The order's deposit as Ferry sends (and simulates) it: with the offerer's stored EIP-2612 permit when its swap
 * came with one (depositWithPermit, no allowance needed), else the plain deposit against the offerer's approval.
 * Read from the database each time, so a restarted worker deposits exactly as the first one would have.
 */
export async function orderDepositCall(
  database: FerryDatabase,
  chain: SettlementChain,
  order: Order,
  terms: OrderTerms,
): Promise<{ call: ContractCall; withPermit: boolean }> {
  const permit = await findSwapPermit(database.db, order.id);
  if (!permit)
    return { call: chain.depositCall(order.inputChain, terms, order.signature), withPermit: false };
  return {
    call: chain.depositWithPermitCall(order.inputChain, terms, order.signature, permit),
    withPermit: true,
  };
}
