/** Inserting the bench seed's rows in batches. */
import type { FerryDatabase } from '../../src/store/engine/database.ts';
import type { QuoteRequestsTable, QuotesTable } from '../../src/store/engine/schema.ts';
import type { OrderRow } from './seed-rows.ts';

/** Rows inserted together, parents first, in one transaction. */
export class Batch {
  qrs: QuoteRequestsTable[] = [];
  quotes: QuotesTable[] = [];
  orders: OrderRow[] = [];
  constructor(private readonly database: FerryDatabase) {}
  size = () => this.qrs.length;
  async flush() {
    if (this.qrs.length === 0) return;
    await this.database.db.transaction().execute(async (trx) => {
      // Chunks keep each statement under SQLite's and PostgreSQL's bound-parameter limits.
      for (const rows of chunks(this.qrs, 500)) await trx.insertInto('quote_requests').values(rows).execute();
      for (const rows of chunks(this.quotes, 500)) await trx.insertInto('quotes').values(rows).execute();
      for (const rows of chunks(this.orders, 500)) await trx.insertInto('orders').values(rows).execute();
    });
  }
}

function chunks<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}
