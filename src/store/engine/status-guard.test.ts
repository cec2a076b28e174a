import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/test-database.ts';
import { dueQuoteRequestsExpiry } from '../tables/quote-requests-store.ts';
import { dueQuotesExpiry } from '../tables/quotes-store.ts';
import type { FerryDatabase } from './database.ts';

const postgres = Boolean(process.env.FERRY_TEST_PG);

/**
 * The expiry sweep's updates pick their rows from the status-and-time index and fetch them by id. Without the guard
 * SQLite answered the update's own status check from the status index instead: every live quote, every second.
 */
describe.skipIf(postgres)('the expiry sweep on SQLite reads only the rows that are due', () => {
  let database: FerryDatabase;
  let close: () => Promise<void>;
  const now = new Date('2026-11-27T12:00:00.000Z');

  beforeAll(async () => {
    ({ database, close } = await openTestDatabase());
  });
  afterAll(() => close());

  const plan = async (query: { compile(): CompiledQuery }) => {
    const { sql, parameters } = query.compile();
    const { rows } = await database.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${sql}`, [...parameters]),
    );
    return rows.map((row) => row.detail);
  };

  it.each([
    ['quotes', () => dueQuotesExpiry(database.db, now, 500), 'quotes_status_end (status=? AND end_time<?)'],
    [
      'quote_requests',
      () => dueQuoteRequestsExpiry(database.db, now, 500),
      'quote_requests_status_expires (status=? AND expires_at<?)',
    ],
  ])('%s: due rows from the time index, each row by its id', async (table, query, dueSearch) => {
    const steps = await plan(query());
    expect(steps).toContain(`SEARCH ${table} USING INDEX ${dueSearch}`);
    // The update's rows come from the id list; no step reads the status index without a time bound.
    expect(steps.some((step) => /USING (COVERING )?INDEX sqlite_autoindex_\w+ \(id=\?\)/.test(step))).toBe(
      true,
    );
    expect(steps.filter((step) => step.endsWith('(status=?)'))).toEqual([]);
  });
});
