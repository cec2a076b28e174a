import type { Executor } from '../engine/db-types.ts';
import { storeError, UniqueViolationError } from '../engine/store-errors.ts';

const STALE_CLAIM_MS = 60_000;

export type IdempotencyClaim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'replay'; readonly statusCode: number; readonly body: string }
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'inFlight' };

/**
 * Claims `key` for a request with hash `requestHash`. The insert is the lock: exactly one request holds
 * a key, the others learn whether to replay its stored response, wait, or refuse a different body.
 */
export async function claimIdempotencyKey(
  db: Executor,
  scope: string,
  key: string,
  requestHash: string,
  now: Date,
): Promise<IdempotencyClaim> {
  try {
    await db
      .insertInto('idempotency_keys')
      .values({
        scope,
        key,
        request_hash: requestHash,
        status_code: null,
        response_body: null,
        created_at: now.getTime(),
      })
      .execute();
    return { kind: 'claimed' };
  } catch (error) {
    if (!(storeError(error) instanceof UniqueViolationError)) throw error;
  }
  const row = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return { kind: 'inFlight' };
  if (row.status_code === null || row.response_body === null) {
    // A claim never completed for a minute means its request died with its process: let the retry run.
    if (row.created_at < now.getTime() - STALE_CLAIM_MS) {
      const retaken = await db
        .updateTable('idempotency_keys')
        .set({ request_hash: requestHash, created_at: now.getTime() })
        .where('scope', '=', scope)
        .where('key', '=', key)
        .where('created_at', '=', row.created_at)
        .where('status_code', 'is', null)
        .executeTakeFirst();
      if (retaken.numUpdatedRows > 0n) return { kind: 'claimed' };
    }
    return row.request_hash === requestHash ? { kind: 'inFlight' } : { kind: 'mismatch' };
  }
  if (row.request_hash !== requestHash) return { kind: 'mismatch' };
  return { kind: 'replay', statusCode: row.status_code, body: row.response_body };
}

export async function completeIdempotencyKey(
  db: Executor,
  scope: string,
  key: string,
  statusCode: number,
  body: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: statusCode, response_body: body })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .execute();
}

/** Frees a key whose request failed on the server side, so the client may retry with it. */
export async function releaseIdempotencyKey(db: Executor, scope: string, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('status_code', 'is', null)
    .execute();
}

export async function deleteIdempotencyKeysBefore(db: Executor, cutoff: Date): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff.getTime()).execute();
}
