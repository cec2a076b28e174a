import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import { initialMigration } from '../migrations/0001-initial.ts';
import { settlementMigration } from '../migrations/0002-settlement.ts';
import { expiryIndexesMigration } from '../migrations/0003-expiry-indexes.ts';
import { chainActionTxsMigration } from '../migrations/0004-chain-action-txs.ts';
import { logCursorsMigration } from '../migrations/0005-log-cursors.ts';
import { eventXidMigration } from '../migrations/0006-event-xid.ts';
import { authLimitsMigration } from '../migrations/0007-auth-limits.ts';
import { explorerSearchMigration } from '../migrations/0008-explorer-search.ts';
import { quotesRequestIndexMigration } from '../migrations/0009-quotes-request-index.ts';
import { txLedgerMigration } from '../migrations/0010-tx-ledger.ts';
import { lpCommitmentsMigration } from '../migrations/0011-lp-commitments.ts';
import { webhooksMigration } from '../migrations/0012-webhooks.ts';
import { settlementMessagesMigration } from '../migrations/0014-settlement-messages.ts';
import { swapPermitsMigration } from '../migrations/0015-swap-permits.ts';
import { protocolFeeMigration } from '../migrations/0016-protocol-fee.ts';
import { offererFundsMigration } from '../migrations/0017-offerer-funds.ts';
import { webhookFairnessMigration } from '../migrations/0018-webhook-fairness.ts';
import { lpPromisesMigration } from '../migrations/0019-lp-promises.ts';
import { offererOpenInputMigration } from '../migrations/0020-offerer-open-input.ts';
import { chainActionOrdersMigration } from '../migrations/0021-chain-action-orders.ts';
import { settlementMessageIndexMigration } from '../migrations/0022-settlement-message-index.ts';
import { offererInputTotalsMigration } from '../migrations/0023-offerer-input-totals.ts';
import { proofSentGuidMigration } from '../migrations/0024-proof-sent-guid.ts';
import { revertTimesIndexMigration } from '../migrations/0025-revert-times-index.ts';
import { openFillingMigration } from '../migrations/0026-open-filling.ts';
import { onchainOrdersMigration } from '../migrations/0027-onchain-orders.ts';
import type { FerryDatabase } from './database.ts';
import { StoreError } from './store-errors.ts';

/** Migrations live in code (not scanned from disk) so both dialects and bundlers see the same list. */
function provider(dialect: FerryDatabase['dialect']): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '0001-initial': initialMigration(dialect),
        '0002-settlement': settlementMigration,
        '0003-expiry-indexes': expiryIndexesMigration,
        '0004-chain-action-txs': chainActionTxsMigration,
        '0005-log-cursors': logCursorsMigration,
        '0006-event-xid': eventXidMigration(dialect),
        '0007-auth-limits': authLimitsMigration,
        '0008-explorer-search': explorerSearchMigration(dialect),
        '0009-quotes-request-index': quotesRequestIndexMigration,
        '0010-tx-ledger': txLedgerMigration,
        '0011-lp-commitments': lpCommitmentsMigration,
        '0012-webhooks': webhooksMigration,
        '0014-settlement-messages': settlementMessagesMigration,
        '0015-swap-permits': swapPermitsMigration,
        '0016-protocol-fee': protocolFeeMigration,
        '0017-offerer-funds': offererFundsMigration,
        '0018-webhook-fairness': webhookFairnessMigration,
        '0019-lp-promises': lpPromisesMigration(dialect),
        '0020-offerer-open-input': offererOpenInputMigration(dialect),
        '0021-chain-action-orders': chainActionOrdersMigration,
        '0022-settlement-message-index': settlementMessageIndexMigration,
        '0023-offerer-input-totals': offererInputTotalsMigration(dialect),
        '0024-proof-sent-guid': proofSentGuidMigration,
        '0025-revert-times-index': revertTimesIndexMigration,
        '0026-open-filling': openFillingMigration,
        '0027-onchain-orders': onchainOrdersMigration,
      };
    },
  };
}

/** Applies every pending migration; throws with the failing migration's name if one fails. */
export async function migrateToLatest(database: FerryDatabase): Promise<string[]> {
  const migrator = new Migrator({ db: database.db, provider: provider(database.dialect) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    throw new StoreError(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
