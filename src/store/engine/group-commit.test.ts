import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import type { FerryDatabase } from './database.ts';

// database.transaction on the backend under test: SQLite by default, PostgreSQL with FERRY_TEST_PG.
describe('database.transaction (group commit on SQLite)', () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;
  const onPostgres = Boolean(process.env.FERRY_TEST_PG);

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(() => close());

  const account = (id: string) => ({ id, type: 'moneyMover', name: id, address: null, created_at: 1 });
  const stored = async (ids: string[]) =>
    (await database.db.selectFrom('accounts').select('id').where('id', 'in', ids).execute())
      .map((r) => r.id)
      .sort();

  it('runs concurrent units of work, each with its own result, and commits them all', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `gc-all-${String(i).padStart(2, '0')}`);
    const results = await Promise.all(
      ids.map((id) =>
        database.transaction(async (trx) => {
          await trx.insertInto('accounts').values(account(id)).execute();
          return id;
        }),
      ),
    );
    expect(results).toEqual(ids);
    expect(await stored(ids)).toEqual(ids);
  });

  it('rolls back only the unit that throws; the others of the same turn commit', async () => {
    const ids = ['gc-keep-1', 'gc-fail', 'gc-keep-2'];
    const outcomes = await Promise.allSettled(
      ids.map((id) =>
        database.transaction(async (trx) => {
          await trx.insertInto('accounts').values(account(id)).execute();
          if (id === 'gc-fail') throw new Error('refused after writing');
          return id;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('refused after writing');
    expect(await stored(ids)).toEqual(['gc-keep-1', 'gc-keep-2']);
  });

  it.skipIf(onPostgres)(
    'a unit sees the writes of the units before it (they run one after another)',
    async () => {
      const [, seen] = await Promise.all([
        database.transaction((trx) => trx.insertInto('accounts').values(account('gc-first')).execute()),
        database.transaction(
          async (trx) =>
            (await trx.selectFrom('accounts').select('id').where('id', '=', 'gc-first').executeTakeFirst())
              ?.id,
        ),
      ]);
      expect(seen).toBe('gc-first');
    },
  );

  it.skipIf(onPostgres)('units of one turn share one transaction', async () => {
    const transactions = new Set<unknown>();
    await Promise.all(
      Array.from({ length: 40 }, () =>
        database.transaction(async (trx) => {
          transactions.add(trx);
        }),
      ),
    );
    expect(transactions.size).toBe(1);
  });

  it.skipIf(onPostgres)('a failed commit fails every unit of the batch and writes none of them', async () => {
    const ids = ['gc-commit-1', 'gc-commit-2'];
    const outcomes = await Promise.allSettled([
      database.transaction((trx) =>
        trx
          .insertInto('accounts')
          .values(account(ids[0] as string))
          .execute(),
      ),
      database.transaction(async (trx) => {
        // A foreign-key violation checked only at commit: the shared commit fails.
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await trx
          .insertInto('api_keys')
          .values({
            id: 'gc-orphan',
            account_id: 'no-such-account',
            key_hash: 'gc-orphan',
            key_prefix: 'fry_',
            created_at: 1,
            revoked_at: null,
            last_used_at: null,
          })
          .execute();
      }),
      database.transaction((trx) =>
        trx
          .insertInto('accounts')
          .values(account(ids[1] as string))
          .execute(),
      ),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(await stored(ids)).toEqual([]);
    // The next batch is unaffected.
    await database.transaction((trx) => trx.insertInto('accounts').values(account('gc-after')).execute());
    expect(await stored(['gc-after'])).toEqual(['gc-after']);
  });
});
