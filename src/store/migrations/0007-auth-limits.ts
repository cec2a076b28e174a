import { type Kysely, sql } from 'kysely';

/**
 * Sign-in limits and who sign-in may join.
 * - `accounts.wallet_sign_in`: Sign-In with Ethereum acts as this account only when it is 1: accounts created by a
 *   sign-in, or operator accounts opted in (`ferry accounts create --allow-wallet-sign-in`). Existing money movers
 *   with an address and no API key can only have come from a sign-in, so they keep working.
 * - Indexes for the sweeper (expired nonces), the per-address session cap, and the stream credential checks.
 */
export const authLimitsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('accounts')
      .addColumn('wallet_sign_in', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`UPDATE accounts SET wallet_sign_in = 1
      WHERE type = 'moneyMover' AND address IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM api_keys WHERE api_keys.account_id = accounts.id)`.execute(db);
    await db.schema.createIndex('siwe_nonces_expires').on('siwe_nonces').column('expires_at').execute();
    await db.schema
      .createIndex('sessions_address_created')
      .on('sessions')
      .columns(['address', 'created_at'])
      .execute();
  },
};
