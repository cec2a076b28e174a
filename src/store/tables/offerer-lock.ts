import { sql } from 'kysely';
import type { Dialect } from '../engine/database.ts';
import type { StoreTransaction } from '../engine/db-types.ts';

/** One offerer's funds in one token on one chain: what its open requests and pending permits are judged against. */
export interface OffererFunds {
  readonly chain: string;
  readonly token: string;
  readonly offerer: string;
}

/**
 * Serialises the transactions that judge one offerer's funds (its open quote requests against its balance, its
 * pending permits' nonces), until the caller's transaction ends. PostgreSQL: a transaction-scoped advisory lock on
 * a hash of the key, which holds across every Ferry instance on the database (a hash collision only makes two
 * offerers wait on each other). SQLite: nothing to take, one writer runs at a time and the group commit runs its
 * units one after another.
 */
export async function lockOffererFunds(trx: StoreTransaction, dialect: Dialect, funds: OffererFunds) {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${offererLockKey(funds)}, 0))`.execute(trx);
}

/** The text the offerer's advisory lock is hashed from (also taken inside ferry_offerer_open_input, migration 0020). */
export function offererLockKey(funds: OffererFunds): string {
  return `offerer:${funds.chain}:${funds.token.toLowerCase()}:${funds.offerer.toLowerCase()}`;
}
