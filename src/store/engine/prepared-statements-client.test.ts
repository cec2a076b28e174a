import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl } from '../../../test/support/test-database.ts';
import { PreparedStatementsClient } from './prepared-statements-client.ts';

const server = process.env.FERRY_TEST_PG;

describe.skipIf(!server)('PreparedStatementsClient on PostgreSQL', () => {
  let url: string;
  let drop: () => Promise<void>;
  // Typed as pg's client: the subclass forwards every overload of `query`.
  let client: pg.Client;
  let other: pg.Client;

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabaseUrl(''));
    client = new PreparedStatementsClient({ connectionString: url });
    other = new PreparedStatementsClient({ connectionString: url });
    await client.connect();
    await other.connect();
    await client.query('create table t (id int primary key, a text)');
    await client.query("insert into t values (1, 'one'), (2, 'two')");
  });
  afterAll(async () => {
    await client?.end();
    await other?.end();
    await drop?.();
  });

  const prepared = async () =>
    (await client.query<{ statement: string }>('select statement from pg_prepared_statements')).rows.map(
      (row) => row.statement,
    );

  it('prepares a parameterised query once on its connection and runs it by name after', async () => {
    const text = 'select a from t where id = $1';
    expect((await client.query(text, [1])).rows).toEqual([{ a: 'one' }]);
    expect((await client.query(text, [2])).rows).toEqual([{ a: 'two' }]);
    expect((await prepared()).filter((statement) => statement === text)).toHaveLength(1);
    // A query without parameters stays unnamed: begin, commit and the like gain nothing from a name.
    await client.query('select 1');
    expect(await prepared()).not.toContain('select 1');
  });

  it('prepares again when a migration changed the columns under it, outside a transaction at once', async () => {
    const text = 'select * from t where id = $1';
    expect(Object.keys((await client.query(text, [1])).rows[0])).toEqual(['id', 'a']);
    await other.query('alter table t add column b text');
    expect(Object.keys((await client.query(text, [1])).rows[0])).toEqual(['id', 'a', 'b']);
  });

  it('inside a transaction the call fails once, and the next one prepares again', async () => {
    const text = 'select * from t where id >= $1 order by id';
    expect((await client.query(text, [1])).rows).toHaveLength(2);
    await other.query('alter table t add column c text');
    await client.query('begin');
    await expect(client.query(text, [1])).rejects.toMatchObject({ code: '0A000' });
    await client.query('rollback');
    expect(Object.keys((await client.query(text, [1])).rows[0])).toEqual(['id', 'a', 'b', 'c']);
  });
});
