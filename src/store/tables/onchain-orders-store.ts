import { ONCHAIN_ACCOUNT_ID, ONCHAIN_ACCOUNT_NAME } from '../../domain/onchain-order.ts';
import type { Order, Quote, QuoteRequest } from '../../domain/records.ts';
import type { Executor } from '../engine/db-types.ts';
import { orderInsert } from './orders-store.ts';
import { quoteRequestInsert } from './quote-requests-store.ts';
import { insertQuotes } from './quotes-store.ts';

/**
 * Which of `orderHashes` (escrow keys, lowercase hex) Ferry knows: a quote of its signs each, and an order's key is
 * its quote's signing hash. A quote whose order is not written yet (signed, deposited by someone before the swap
 * call) counts too: the swap writes that order.
 */
export async function knownOrderHashes(db: Executor, orderHashes: readonly string[]): Promise<Set<string>> {
  const known = new Set<string>();
  // In slices: a range of many deposits must not run into the databases' limit on bound parameters.
  for (let i = 0; i < orderHashes.length; i += 500) {
    const rows = await db
      .selectFrom('quotes')
      .select('signing_hash')
      .where('signing_hash', 'in', orderHashes.slice(i, i + 500))
      .execute();
    for (const r of rows) known.add(r.signing_hash.toLowerCase());
  }
  return known;
}

/**
 * An order a wallet opened on chain, with the request and accepted quote that carry its terms (one transaction).
 * The account holding them is written with the first such order: a Ferry no wallet opened an order on lists none.
 */
export async function insertOnchainOrder(
  trx: Executor,
  rows: { request: QuoteRequest; quote: Quote; order: Order },
): Promise<void> {
  await trx
    .insertInto('accounts')
    .values({
      id: ONCHAIN_ACCOUNT_ID,
      type: 'moneyMover',
      name: ONCHAIN_ACCOUNT_NAME,
      address: null,
      created_at: rows.order.createdAt.getTime(),
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await trx.executeQuery(quoteRequestInsert(rows.request)(trx));
  await insertQuotes(trx, [rows.quote]);
  await trx.executeQuery(orderInsert(rows.order)(trx));
}
