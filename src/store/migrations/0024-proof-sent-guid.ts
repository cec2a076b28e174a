import type { Kysely } from 'kysely';

/**
 * Proof messages by guid: before the worker sends a message's commit or execute, it finds the message's other orders
 * from the ProofSent rows the message emitted (shared-actions-store.ts messageOrdersToServe), one per order hash.
 */
export const proofSentGuidMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('proof_sent_guid').on('proof_sent').columns(['guid', 'chain']).execute();
  },
};
