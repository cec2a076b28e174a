import type { Kysely } from 'kysely';

/**
 * The token nonce each swap permit was signed over: a second permit swap of the same offerer and token while the
 * first is not yet deposited would carry the same nonce, and only one of the two deposits could ever use it.
 * Permits written before this column have none (null), and count as using whatever nonce is asked about.
 */
export const permitNoncesMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('swap_permits').addColumn('nonce', 'text').execute();
  },
};
