import type { Address } from '../../domain/address.ts';
import type { AccountType } from '../../domain/principal.ts';
import { compiledQuery } from '../engine/compiled-query.ts';
import type { Executor } from '../engine/db-types.ts';

export async function insertNonce(db: Executor, nonce: string, expiresAt: Date): Promise<void> {
  await db
    .insertInto('siwe_nonces')
    .values({ nonce, expires_at: expiresAt.getTime(), used_at: null })
    .execute();
}

/**
 * Uses up a nonce by deleting it. Only one caller can ever delete a given row: that is what makes it single-use,
 * and a used nonce leaves nothing behind.
 */
export async function consumeNonce(db: Executor, nonce: string, now: Date): Promise<boolean> {
  const result = await db
    .deleteFrom('siwe_nonces')
    .where('nonce', '=', nonce)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.getTime())
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Deletes nonces past their expiry (never used). Returns how many went. */
export async function deleteExpiredNonces(db: Executor, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('siwe_nonces')
    .where('expires_at', '<=', now.getTime())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes sessions past their expiry (revoked or not): nothing reads them again. Returns how many went. */
export async function deleteExpiredSessions(db: Executor, now: Date): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now.getTime()).executeTakeFirst();
  return Number(result.numDeletedRows);
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

/** Ends every live session of `address` but the newest `keep`; returns how many ended. */
export async function endSessionsBeyond(db: Executor, address: Address, keep: number, now: Date) {
  const surplus = await db
    .selectFrom('sessions')
    .select('id')
    .where('address', '=', address)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now.getTime())
    // Ids are monotonic ULIDs: they order sessions made within the same millisecond too.
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(keep)
    .limit(1000)
    .execute();
  if (surplus.length === 0) return 0;
  await db
    .updateTable('sessions')
    .set({ revoked_at: now.getTime() })
    .where(
      'id',
      'in',
      surplus.map((row) => row.id),
    )
    .execute();
  return surplus.length;
}

/**
 * Of the given session and API key ids, those still live: sessions not ended and not expired, keys not revoked.
 * Streams ask this to find out whether their credential still holds.
 */
export async function liveCredentialIds(
  db: Executor,
  ids: { sessions: readonly string[]; apiKeys: readonly string[] },
  now: Date,
): Promise<Set<string>> {
  const live = new Set<string>();
  if (ids.sessions.length > 0) {
    const rows = await db
      .selectFrom('sessions')
      .select('id')
      .where('id', 'in', ids.sessions)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now.getTime())
      .execute();
    for (const row of rows) live.add(row.id);
  }
  if (ids.apiKeys.length > 0) {
    const rows = await db
      .selectFrom('api_keys')
      .select('id')
      .where('id', 'in', ids.apiKeys)
      .where('revoked_at', 'is', null)
      .execute();
    for (const row of rows) live.add(row.id);
  }
  return live;
}
