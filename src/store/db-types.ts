import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** Store functions run on the database or inside a caller's transaction alike. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** A caller's open database transaction, for code outside src/store that hands one to store functions. */
export type StoreTransaction = Transaction<Database>;
