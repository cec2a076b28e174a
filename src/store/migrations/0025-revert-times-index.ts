import type { Kysely } from 'kysely';

/**
 * Reverted chain actions by time. Every swap reads its money mover's recent reverts (the relayer revert throttle,
 * settlement-store.ts revertTimes); before this index the read walked every reverted action ever recorded, by any
 * account, a cost that only grows. Now it reads the reverts of the throttle's window, newest first.
 */
export const revertTimesIndexMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('chain_actions_status_updated')
      .on('chain_actions')
      .columns(['status', 'updated_at'])
      .execute();
  },
};
