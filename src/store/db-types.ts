import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** Store functions run on the database or inside a caller's transaction alike. */
export type Executor = Kysely<Database> | Transaction<Database>;
