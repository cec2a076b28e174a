import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import type { FerryDatabase } from '../database.ts';

const PARTIAL = [
  ['orders_src_chain_tx_hash', 'src_chain_tx_hash = ?'],
  ['orders_dst_chain_tx_hash', 'dst_chain_tx_hash = ?'],
  ['orders_settlement_tx_hash', 'settlement_tx_hash = ?'],
  ['orders_status_completed', "status = 'completed' and completed_at >= ?"],
] as const;

describe('0010: the search and stats indexes cover only rows that hold a value', () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(async () => {
    await close?.();
  });

  /** The plan's text for `select id from orders where <condition>`, on the backend under test. */
  async function plan(condition: string): Promise<string> {
    if (database.dialect === 'sqlite') {
      const query = sql.raw(
        `explain query plan select id from orders where ${condition.replace('?', "'x'")}`,
      );
      const rows = await query.execute(database.db);
      return JSON.stringify(rows.rows);
    }
    // On a near-empty table PostgreSQL would scan it; what matters is that the index may serve the lookup, also in
    // a generic plan (a parameter, not a constant, as the API's prepared queries send it).
    return database.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
      await sql
        .raw(`prepare lookup(text) as select id from orders where ${condition.replace('?', '$1')}`)
        .execute(trx);
      const rows = await sql.raw(`explain execute lookup('0xab')`).execute(trx);
      await sql.raw('deallocate lookup').execute(trx);
      return JSON.stringify(rows.rows);
    });
  }

  it.each(PARTIAL)('%s is partial, and `%s` still uses it', async (index, condition) => {
    const definition =
      database.dialect === 'sqlite'
        ? (
            await sql<{ sql: string }>`select sql from sqlite_master where name = ${index}`.execute(
              database.db,
            )
          ).rows[0]?.sql
        : (
            await sql<{
              sql: string;
            }>`select indexdef as sql from pg_indexes where indexname = ${index}`.execute(database.db)
          ).rows[0]?.sql;
    expect(definition).toMatch(/ where .* is not null/i);
    const usable = condition.includes('completed_at') ? condition.replace('?', '0') : condition;
    expect(await plan(usable)).toContain(index);
  });
});
