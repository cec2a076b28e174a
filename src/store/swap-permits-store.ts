import type { SwapPermit } from '../domain/swap-permit.ts';
import type { Executor } from './db-types.ts';

/** Writes a swap's permit; called in the transaction that inserts its order. */
export async function insertSwapPermit(db: Executor, orderId: string, permit: SwapPermit): Promise<void> {
  await db
    .insertInto('swap_permits')
    .values({ order_id: orderId, deadline: permit.deadline.toString(), signature: permit.signature })
    .execute();
}

/** The permit the order's swap came with, or null (the offerer approved the escrow instead). */
export async function findSwapPermit(db: Executor, orderId: string): Promise<SwapPermit | null> {
  const row = await db
    .selectFrom('swap_permits')
    .select(['deadline', 'signature'])
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  return row ? { deadline: BigInt(row.deadline), signature: row.signature as `0x${string}` } : null;
}
