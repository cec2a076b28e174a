import type { Address } from '../domain/address.ts';
import type { AccountType } from '../domain/principal.ts';
import { compiledQuery } from './compiled-query.ts';
import type { Executor } from './db-types.ts';

export async function insertNonce(db: Executor, nonce: string, expiresAt: Date): Promise<void> {
  await db
    .insertInto('siwe_nonces')
    .values({ nonce, expires_at: expiresAt.getTime(), used_at: null })
    .execute();
}

/** Marks a nonce used. Only one caller can ever win this for a given nonce: that is what makes it single-use. */
export async function consumeNonce(db: Executor, nonce: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('siwe_nonces')
    .set({ used_at: now.getTime() })
    .where('nonce', '=', nonce)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.getTime())
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface NewSession {
  readonly id: string;
  readonly tokenHash: string;
  readonly accountId: string;
  readonly address: Address;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export async function insertSession(db: Executor, s: NewSession): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id: s.id,
      token_hash: s.tokenHash,
      account_id: s.accountId,
      address: s.address,
      created_at: s.createdAt.getTime(),
      expires_at: s.expiresAt.getTime(),
      revoked_at: null,
    })
    .execute();
}

// Runs on every request that sends a session token.
const selectLiveSession = compiledQuery((db, p: { tokenHash: string; now: number }) =>
  db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select(['sessions.id', 'sessions.address', 'sessions.account_id', 'accounts.type'])
    .where('sessions.token_hash', '=', p.tokenHash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', p.now),
);

export async function findLiveSession(db: Executor, tokenHash: string, now: Date) {
  const row = (await selectLiveSession(db, { tokenHash, now: now.getTime() })).rows[0];
  if (!row) return null;
  return {
    sessionId: row.id,
    address: row.address as Address,
    accountId: row.account_id,
    accountType: row.type as AccountType,
  };
}

export async function revokeSession(db: Executor, sessionId: string, now: Date): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: now.getTime() }).where('id', '=', sessionId).execute();
}
