import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { seedOrderRow } from '../../../test/support/order-rows.ts';
import { createTestDatabaseUrl } from '../../../test/support/test-database.ts';
import { createDatabase } from '../engine/database.ts';
import { findOrder } from '../tables/orders-store.ts';
import { initialMigration } from './0001-initial.ts';
import { settlementMigration } from './0002-settlement.ts';
import { expiryIndexesMigration } from './0003-expiry-indexes.ts';
import { chainActionTxsMigration } from './0004-chain-action-txs.ts';
import { logCursorsMigration } from './0005-log-cursors.ts';
import { eventXidMigration } from './0006-event-xid.ts';
import { authLimitsMigration } from './0007-auth-limits.ts';
import { explorerSearchMigration } from './0008-explorer-search.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-migration-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it("0008 copies every existing order's filler and deadlines from its quote's typed data", async () => {
  const target = await createTestDatabaseUrl(path.join(dir, 'ferry.sqlite'));
  const database = createDatabase({ databaseUrl: target.url });
  try {
    const d = database.dialect;
    const migrations = {
      '0001-initial': initialMigration(d),
      '0002-settlement': settlementMigration,
      '0003-expiry-indexes': expiryIndexesMigration,
      '0004-chain-action-txs': chainActionTxsMigration,
      '0005-log-cursors': logCursorsMigration,
      '0006-event-xid': eventXidMigration(d),
      '0007-auth-limits': authLimitsMigration,
      '0008-explorer-search': explorerSearchMigration(d),
    };
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('0007-auth-limits')).error).toBeUndefined();

    const orderId = await seedOrderRow(database);
    const filler = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
    const message = { filler, openDeadline: '1800000123', fillDeadline: '1800000456' };
    await database.db
      .updateTable('quotes')
      .set({ typed_data: JSON.stringify({ primaryType: 'Order', message }) })
      .where('order_id', '=', orderId)
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const order = await findOrder(database.db, orderId);
    expect(order).toMatchObject({ filler, openDeadline: 1_800_000_123n, fillDeadline: 1_800_000_456n });
  } finally {
    await database.destroy();
    await target.drop();
  }
});
