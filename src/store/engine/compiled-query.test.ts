import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import { compiledQuery } from './compiled-query.ts';
import type { FerryDatabase } from './database.ts';

// On the backend under test: SQLite by default, PostgreSQL with FERRY_TEST_PG.
describe('compiledQuery', () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
    await database.db
      .insertInto('accounts')
      .values([
        { id: 'cq-a', type: 'moneyMover', name: 'alpha', address: null, created_at: 10 },
        { id: 'cq-b', type: 'liquidityProvider', name: 'beta', address: null, created_at: 20 },
        { id: 'cq-c', type: 'moneyMover', name: 'gamma', address: null, created_at: 30 },
      ])
      .execute();
  });
  afterAll(() => close());

  // A constant ('moneyMover') between two parameters, and the parameters used in another order than declared.
  const moneyMoversBetween = compiledQuery((db, p: { to: number; from: number }) =>
    db
      .selectFrom('accounts')
      .select(['id', 'name'])
      .where('created_at', '>=', p.from)
      .where('type', '=', 'moneyMover')
      .where('created_at', '<=', p.to)
      .orderBy('created_at'),
  );

  it('binds each call its own values and keeps the constants of the query', async () => {
    expect((await moneyMoversBetween(database.db, { from: 0, to: 100 })).rows).toEqual([
      { id: 'cq-a', name: 'alpha' },
      { id: 'cq-c', name: 'gamma' },
    ]);
    expect((await moneyMoversBetween(database.db, { from: 15, to: 100 })).rows).toEqual([
      { id: 'cq-c', name: 'gamma' },
    ]);
    expect((await moneyMoversBetween(database.db, { from: 11, to: 29 })).rows).toEqual([]);
  });

  it('runs inside a transaction and sees its uncommitted writes', async () => {
    const rows = await database.transaction(async (trx) => {
      await trx
        .insertInto('accounts')
        .values({ id: 'cq-d', type: 'moneyMover', name: 'delta', address: null, created_at: 40 })
        .execute();
      return (await moneyMoversBetween(trx, { from: 35, to: 45 })).rows;
    });
    expect(rows).toEqual([{ id: 'cq-d', name: 'delta' }]);
  });

  it('binds null, and refuses a missing parameter instead of sending undefined', async () => {
    const byAddress = compiledQuery((db, p: { id: string; address: string | null }) =>
      db.updateTable('accounts').set({ address: p.address }).where('id', '=', p.id),
    );
    await byAddress(database.db, { id: 'cq-a', address: null });
    await expect(byAddress(database.db, { id: 'cq-a' } as never)).rejects.toThrow(/parameter "address"/);
  });
});
