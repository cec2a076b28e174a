import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase, type FerryDatabase } from '../../src/store/engine/database.ts';
import { migrateToLatest } from '../../src/store/engine/migrator.ts';

/**
 * The database a test suite runs on. By default a fresh SQLite file; with FERRY_TEST_PG set to a server URL
 * (e.g. postgres://postgres@127.0.0.1:5432) a fresh PostgreSQL database, dropped when the suite ends.
 */
export async function createTestDatabaseUrl(
  sqliteFile: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = process.env.FERRY_TEST_PG;
  if (!server) return { url: `sqlite:${sqliteFile}`, drop: async () => {} };
  const name = `ferry_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${server.replace(/\/$/, '')}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: `${server.replace(/\/$/, '')}/${name}`,
    drop: async () => {
      const client = new pg.Client({ connectionString: `${server.replace(/\/$/, '')}/postgres` });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A migrated database of the backend under test, for storage suites; `close` destroys and drops it. */
export async function openTestDatabase(): Promise<{ database: FerryDatabase; close: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-store-'));
  const target = await createTestDatabaseUrl(path.join(dir, 'ferry.sqlite'));
  const database = createDatabase({ databaseUrl: target.url });
  await migrateToLatest(database);
  return {
    database,
    close: async () => {
      await database.destroy();
      await target.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
