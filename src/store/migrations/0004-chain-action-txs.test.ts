import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, Migrator } from 'kysely';
import { keccak256, parseGwei } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, expect, it } from 'vitest';
import { seedOrderRow } from '../../../test/support/order-rows.ts';
import { createTestDatabaseUrl } from '../../../test/support/test-database.ts';
import { createDatabase } from '../engine/database.ts';
import { initialMigration } from './0001-initial.ts';
import { settlementMigration } from './0002-settlement.ts';
import { expiryIndexesMigration } from './0003-expiry-indexes.ts';
import { chainActionTxsMigration } from './0004-chain-action-txs.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-migration-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('0004 copies the transaction of every existing chain action into chain_action_txs', async () => {
  const target = await createTestDatabaseUrl(path.join(dir, 'ferry.sqlite'));
  const database = createDatabase({ databaseUrl: target.url });
  try {
    const migrations = {
      '0001-initial': initialMigration(database.dialect),
      '0002-settlement': settlementMigration,
      '0003-expiry-indexes': expiryIndexesMigration,
      '0004-chain-action-txs': chainActionTxsMigration,
    };
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('0003-expiry-indexes')).error).toBeUndefined();

    const orderId = await seedOrderRow(database);
    const raw = await privateKeyToAccount(generatePrivateKey()).signTransaction({
      chainId: 1,
      type: 'eip1559',
      to: '0x00000000000000000000000000000000000000aa',
      nonce: 7,
      gas: 21_000n,
      maxFeePerGas: parseGwei('30'),
      maxPriorityFeePerGas: parseGwei('2'),
    });
    // The row as the previous schema had it (without the columns 0004 adds).
    await (database.db as unknown as Kysely<Record<string, Record<string, unknown>>>)
      .insertInto('chain_actions')
      .values({
        id: 'act_legacy',
        order_id: orderId,
        kind: 'deposit',
        chain: 'a',
        from_address: '0x00000000000000000000000000000000000000bb',
        nonce: 7,
        tx_hash: keccak256(raw),
        raw_tx: raw,
        status: 'confirmed',
        created_at: 1,
        updated_at: 2,
      })
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const txs = await database.db.selectFrom('chain_action_txs').selectAll().execute();
    expect(txs).toEqual([
      {
        tx_hash: keccak256(raw),
        action_id: 'act_legacy',
        attempt: 0,
        raw_tx: raw,
        max_fee_per_gas: parseGwei('30').toString(),
        max_priority_fee_per_gas: parseGwei('2').toString(),
        status: 'confirmed',
        created_at: 1,
        broadcast_at: 2,
      },
    ]);
  } finally {
    await database.destroy();
    await target.drop();
  }
});
