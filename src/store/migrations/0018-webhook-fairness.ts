import type { Kysely } from 'kysely';

/**
 * Fair webhook delivery. `failures` counts an endpoint's failed attempts in a row (any delivery) and `retry_at` holds
 * the endpoint back until its backoff is over, so a receiver that keeps failing is tried once per step of the
 * schedule instead of once per pending delivery; `claimed_at` (last claim) lets dispatchers claim the endpoint that
 * waited longest first, round-robin.
 */
export const webhookFairnessMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('retry_at', 'bigint').execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('claimed_at', 'bigint').execute();
  },
};
