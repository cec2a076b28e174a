import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import type { FerryDatabase } from './database.ts';

// Only PostgreSQL has connections that the server can end under a running transaction.
describe.skipIf(!process.env.FERRY_TEST_PG)('PostgreSQL connection loss', () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(() => close());

  it('a backend terminated between two statements of a transaction fails that transaction, not the process', async () => {
    const admin = new pg.Client({ connectionString: `${process.env.FERRY_TEST_PG}/postgres` });
    await admin.connect();
    try {
      const outcome = database.transaction(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        // The client is checked out and idle when the termination arrives (no query is active).
        await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await sql`select 1`.execute(trx);
      });
      await expect(outcome).rejects.toThrow();
      // The pool dropped the dead client: the next work gets a fresh connection.
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows[0]?.one).toBe(1);
    } finally {
      await admin.end();
    }
  });
});
