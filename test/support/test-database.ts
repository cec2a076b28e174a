import { randomBytes } from 'node:crypto';
import pg from 'pg';

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
