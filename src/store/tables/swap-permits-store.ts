import type { SwapPermit } from '../../domain/swap-permit.ts';
import type { Executor } from '../engine/db-types.ts';
import type { OffererFunds } from './offerer-lock.ts';

/** Writes a swap's permit; called in the transaction that inserts its order. */
export async function insertSwapPermit(db: Executor, orderId: string, permit: SwapPermit): Promise<void> {
  await db
    .insertInto('swap_permits')
    .values({
      order_id: orderId,
      deadline: permit.deadline.toString(),
      signature: permit.signature,
      nonce: permit.nonce === null ? null : permit.nonce.toString(),
    })
    .execute();
}

/** The permit the order's swap came with, or null (the offerer approved the escrow instead). */
export async function findSwapPermit(db: Executor, orderId: string): Promise<SwapPermit | null> {
  const row = await db
    .selectFrom('swap_permits')
    .select(['deadline', 'signature', 'nonce'])
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  return row
    ? {
        deadline: BigInt(row.deadline),
        signature: row.signature as `0x${string}`,
        nonce: row.nonce === null ? null : BigInt(row.nonce),
      }
    : null;
}

/**
 * The order of the offerer's earlier permit swap in this token that is not deposited yet and carries `nonce` (or
 * no recorded nonce), else null: its deposit would use the nonce up, so a second permit over it can never be
 * used. Run after lockOffererFunds, in the transaction that inserts the new order.
 */
export async function pendingPermitOrder(
  db: Executor,
  funds: OffererFunds,
  nonce: bigint,
): Promise<string | null> {
  const row = await db
    .selectFrom('swap_permits')
    .innerJoin('orders', 'orders.id', 'swap_permits.order_id')
    .select('orders.id')
    .where('orders.input_chain', '=', funds.chain)
    .where('orders.input_token', '=', funds.token)
    .where('orders.offerer', '=', funds.offerer)
    .where('orders.status', '=', 'created')
    .where((eb) =>
      eb.or([eb('swap_permits.nonce', '=', nonce.toString()), eb('swap_permits.nonce', 'is', null)]),
    )
    .executeTakeFirst();
  return row?.id ?? null;
}
