import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** Store functions run on the database or inside a caller's transaction alike. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** A transaction handed to a unit of work's callers, for store functions that must run inside it. */
export type StoreTransaction = Transaction<Database>;
