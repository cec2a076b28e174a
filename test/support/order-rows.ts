import { randomBytes } from 'node:crypto';
import type { FerryDatabase } from '../../src/store/engine/database.ts';

/**
 * A bare order row (with the account, request and quote rows its foreign keys need), for tests of chain
 * actions that do not go through the API. The values are placeholders: nothing reads them on chain.
 */
export async function seedOrderRow(database: FerryDatabase, status = 'created'): Promise<string> {
  const tag = randomBytes(6).toString('hex');
  const now = Date.now();
  const zero = `0x${'00'.repeat(20)}`;
  const ids = { account: `acc_${tag}`, request: `qr_${tag}`, quote: `quo_${tag}`, order: `ord_${tag}` };
  await database.transaction(async (trx) => {
    await trx
      .insertInto('accounts')
      .values({ id: ids.account, type: 'moneyMover', name: tag, address: null, created_at: now })
      .execute();
    await trx
      .insertInto('quote_requests')
      .values({
        id: ids.request,
        account_id: ids.account,
        offerer: zero,
        recipient: zero,
        input_token: zero,
        output_token: zero,
        input_amount: '1',
        input_chain: 'a',
        output_chain: 'b',
        status: 'accepted',
        accepted_quote_id: ids.quote,
        created_at: now,
        updated_at: now,
        expires_at: now,
      })
      .execute();
    await trx
      .insertInto('quotes')
      .values({
        id: ids.quote,
        quote_request_id: ids.request,
        liquidity_provider_id: ids.account,
        order_id: ids.order,
        output_amount: '1',
        start_time: now,
        end_time: now,
        signing_hash: `0x${tag}`,
        typed_data: '{}',
        status: 'accepted',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await trx
      .insertInto('orders')
      .values({
        id: ids.order,
        quote_id: ids.quote,
        quote_request_id: ids.request,
        blockchain_order_id: `0x${tag}`,
        signature: '0x',
        status,
        money_mover_account_id: ids.account,
        liquidity_provider_account_id: ids.account,
        offerer: zero,
        recipient: zero,
        input_token: zero,
        output_token: zero,
        input_amount: '1',
        output_amount: '1',
        input_chain: 'a',
        output_chain: 'b',
        src_chain_tx_hash: null,
        dst_chain_tx_hash: null,
        settlement_tx_hash: null,
        failure_reason: null,
        metadata: '{}',
        created_by: 'test',
        updated_by: 'test',
        created_at: now,
        updated_at: now,
        completed_at: null,
      })
      .execute();
  });
  return ids.order;
}
