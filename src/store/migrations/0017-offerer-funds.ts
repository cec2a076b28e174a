import type { Kysely } from 'kysely';

/**
 * What one offerer's funds in one token are judged against:
 * - the token nonce each swap permit was signed over: a second permit swap of the same offerer and token while the
 *   first is not yet deposited would carry the same nonce, and only one of the two deposits could ever use it.
 *   Permits written before this column have none (null), and count as using whatever nonce is asked about;
 * - an index for the sum of the offerer's open quote requests in a token, read on every new request.
 */
export const offererFundsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('swap_permits').addColumn('nonce', 'text').execute();
    await db.schema
      .createIndex('quote_requests_offerer_funds')
      .on('quote_requests')
      .columns(['offerer', 'input_chain', 'input_token', 'status'])
      .execute();
  },
};
