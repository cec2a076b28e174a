import type { Executor } from './db-types.ts';
import { activeQuote } from './lifecycle-sql.ts';

/** Orders whose output the liquidity provider has yet to deliver. */
const UNFILLED = ['created', 'deposited'];

/**
 * What a liquidity provider has already promised on one chain in one token: the output of its quotes still active
 * (not past their end), of its accepted quotes whose swap may still come (no order yet, deposit window still open:
 * `end_time > acceptedSinceSeconds`) and of its orders not yet filled. Read inside the quote's insert transaction, after the LP's
 * account row is locked (PostgreSQL; SQLite runs one writer at a time), so two quotes created at once cannot both
 * count on the same balance.
 */
export async function lpCommitted(
  trx: Executor,
  dialect: 'sqlite' | 'postgres',
  input: {
    lpAccountId: string;
    chain: string;
    token: string;
    nowSeconds: number;
    acceptedSinceSeconds: number;
  },
): Promise<bigint> {
  if (dialect === 'postgres') {
    await trx.selectFrom('accounts').select('id').where('id', '=', input.lpAccountId).forUpdate().execute();
  }
  // One statement for both kinds of promise: a round trip fewer on the quote path.
  const rows = await trx
    .selectFrom('quotes')
    .innerJoin('quote_requests', 'quote_requests.id', 'quotes.quote_request_id')
    .leftJoin('orders', 'orders.id', 'quotes.order_id')
    .select((eb) => eb.ref('quotes.output_amount').$castTo<string | null>().as('output_amount'))
    .where('quotes.liquidity_provider_id', '=', input.lpAccountId)
    .where((eb) =>
      eb.or([
        activeQuote(eb, input.nowSeconds),
        eb.and([
          eb('quotes.status', '=', 'accepted'),
          eb('quotes.end_time', '>', input.acceptedSinceSeconds),
          eb('orders.id', 'is', null),
        ]),
      ]),
    )
    .where('quote_requests.output_chain', '=', input.chain)
    .where('quote_requests.output_token', '=', input.token)
    .unionAll((eb) =>
      eb
        .selectFrom('orders')
        .select('orders.output_amount as output_amount')
        .where('orders.liquidity_provider_account_id', '=', input.lpAccountId)
        .where('orders.status', 'in', UNFILLED)
        .where('orders.output_chain', '=', input.chain)
        .where('orders.output_token', '=', input.token),
    )
    .execute();
  // Amounts are uint256 decimal strings: summed as bigint, never by the database's 64-bit SUM.
  return rows.reduce((sum, row) => sum + BigInt(row.output_amount ?? 0), 0n);
}
