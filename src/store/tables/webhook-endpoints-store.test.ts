import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type FerryDatabase } from '../engine/database.ts';
import { migrateToLatest } from '../engine/migrator.ts';
import { claimEndpoints } from './webhook-endpoints-store.ts';

/**
 * Every commit of the API wakes the webhook dispatcher, which claims endpoints with a delivery due. With nothing due
 * the claim must not be a write: on SQLite a write that changes nothing still waits for the write lock and commits.
 */
describe('claiming webhook endpoints with nothing due (SQLite)', () => {
  let dir: string;
  let database: FerryDatabase;
  let other: SQLite.Database;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-claim-'));
    const file = path.join(dir, 'ferry.sqlite');
    database = createDatabase({ databaseUrl: `sqlite:${file}` });
    await migrateToLatest(database);
    other = new SQLite(file);
  });
  afterAll(async () => {
    other?.close();
    await database?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers at once while another connection holds the write lock', async () => {
    other.exec('begin immediate');
    try {
      const claimed = await claimEndpoints(database, {
        now: Date.now(),
        leaseMs: 30_000,
        limit: 8,
        failing: false,
      });
      // A write would wait out the busy timeout and then fail with SQLITE_BUSY ("database is locked").
      expect(claimed).toEqual([]);
    } finally {
      other.exec('rollback');
    }
  });
});
