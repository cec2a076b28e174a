import { type Kysely, PostgresAdapter, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** Store functions run on the database or inside a caller's transaction alike. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** A caller's open database transaction, for code outside src/store that hands one to store functions. */
export type StoreTransaction = Transaction<Database>;

/** Whether a store function's executor talks to PostgreSQL (else SQLite): the one place that tells. */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
