import type { Selectable } from 'kysely';
import type { Address } from '../../domain/address.ts';
import type { AccountType } from '../../domain/principal.ts';
import type { Account, ApiKey } from '../../domain/records.ts';
import { compiledQuery } from '../engine/compiled-query.ts';
import type { Executor } from '../engine/db-types.ts';
import type { AccountsTable, ApiKeysTable } from '../engine/schema.ts';

function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    type: row.type as AccountType,
    name: row.name,
    address: row.address as Address | null,
    walletSignIn: row.wallet_sign_in === 1,
    createdAt: new Date(row.created_at),
  };
}

function toApiKey(row: ApiKeysTable): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    keyPrefix: row.key_prefix,
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  };
}

export async function insertAccount(db: Executor, account: Account): Promise<void> {
  await db
    .insertInto('accounts')
    .values({
      id: account.id,
      type: account.type,
      name: account.name,
      address: account.address,
      wallet_sign_in: account.walletSignIn ? 1 : 0,
      created_at: account.createdAt.getTime(),
    })
    .execute();
}

const selectAccount = compiledQuery((db, p: { id: string }) =>
  db.selectFrom('accounts').selectAll().where('id', '=', p.id),
);

export async function findAccount(db: Executor, id: string): Promise<Account | null> {
  const row = (await selectAccount(db, { id })).rows[0];
  return row ? toAccount(row) : null;
}

/** Every account, oldest first; with `type` and `name`, the accounts of that type named so (the operator's names). */
export async function listAccounts(
  db: Executor,
  filter: { type?: AccountType; name?: string } = {},
): Promise<Account[]> {
  let query = db.selectFrom('accounts').selectAll();
  if (filter.type) query = query.where('type', '=', filter.type);
  if (filter.name !== undefined) query = query.where('name', '=', filter.name);
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  return rows.map(toAccount);
}

/** The money-mover account a sign-in by `address` acts as: one open to wallet sign-in, never another. */
export async function findSignInAccount(db: Executor, address: Address) {
  const row = await db
    .selectFrom('accounts')
    .selectAll()
    .where('address', '=', address)
    .where('type', '=', 'moneyMover')
    .where('wallet_sign_in', '=', 1)
    .orderBy('created_at')
    .executeTakeFirst();
  return row ? toAccount(row) : null;
}

export async function insertApiKey(db: Executor, key: ApiKey, keyHash: string): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      account_id: key.accountId,
      key_hash: keyHash,
      key_prefix: key.keyPrefix,
      created_at: key.createdAt.getTime(),
      revoked_at: null,
      last_used_at: null,
    })
    .execute();
}

export async function listApiKeys(db: Executor, accountId: string): Promise<ApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
  return rows.map(toApiKey);
}

/** Returns false when no live key has that id (unknown or already revoked). */
export async function revokeApiKey(db: Executor, keyId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now.getTime() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The account behind a live API key, looked up by the key's hash. */
// Runs on every request that sends an API key.
const selectByKeyHash = compiledQuery((db, p: { keyHash: string }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select(['api_keys.id as key_id', 'api_keys.revoked_at', 'accounts.id', 'accounts.type'])
    .where('api_keys.key_hash', '=', p.keyHash),
);

export async function findAccountByKeyHash(db: Executor, keyHash: string) {
  const row = (await selectByKeyHash(db, { keyHash })).rows[0];
  if (!row) return null;
  return {
    keyId: row.key_id,
    revoked: row.revoked_at !== null,
    accountId: row.id,
    accountType: row.type as AccountType,
  };
}
