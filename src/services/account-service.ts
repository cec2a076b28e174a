import { createHash, randomBytes } from 'node:crypto';
import type { Address } from '../domain/address.ts';
import { AppError } from '../domain/app-error.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import type { AccountType } from '../domain/principal.ts';
import type { Account, ApiKey } from '../domain/records.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import {
  findAccount,
  insertAccount,
  insertApiKey,
  listAccounts,
  listApiKeys,
  revokeApiKey,
} from '../store/tables/accounts-store.ts';

/** Keys and session tokens are random 256-bit secrets, so a plain SHA-256 is a safe, fast lookup hash. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

const KEY_PREFIX = 'fry_';

export interface NewAccount {
  type: AccountType;
  name: string;
  address: Address | null;
  /** Let Sign-In with Ethereum by `address` act as this money-mover account (off by default). */
  allowWalletSignIn?: boolean;
}

/** Accounts and their API keys, for the operator's CLI and the API's own account route. */
export interface AccountService {
  createAccount(input: NewAccount): Promise<Account>;
  /**
   * The oldest account of this type and name when there is one (a quickstart or the demo run again), else a new
   * one: runs that repeat do not pile up accounts. An existing account whose address or wallet sign-in differs
   * from the input is refused rather than silently used for another wallet.
   */
  findOrCreateAccount(input: NewAccount): Promise<{ account: Account; reused: boolean }>;
  listAccounts(): Promise<Account[]>;
  /** Issues a key. The plaintext is returned once and only its hash is stored. */
  createApiKey(accountId: string): Promise<{ apiKey: string; key: ApiKey }>;
  getAccount(accountId: string): Promise<Account>;
  listApiKeys(accountId: string): Promise<ApiKey[]>;
  revokeApiKey(keyId: string): Promise<void>;
}

export function createAccountService({
  database,
  clock,
  credentialsEnded = () => {},
}: {
  database: FerryDatabase;
  clock: Clock;
  /** Told when a key is revoked here, so this process closes the key's streams at once (others poll). */
  credentialsEnded?: () => void;
}): AccountService {
  const service: AccountService = {
    async createAccount(input: NewAccount): Promise<Account> {
      if (input.type === 'liquidityProvider' && input.address === null) {
        throw new AppError('VALIDATION_ERROR', 'a liquidity provider needs --address, its fill address', [
          { path: 'address', message: 'required for liquidity providers' },
        ]);
      }
      const walletSignIn = input.allowWalletSignIn ?? false;
      if (walletSignIn && (input.type !== 'moneyMover' || input.address === null)) {
        throw new AppError(
          'VALIDATION_ERROR',
          '--allow-wallet-sign-in needs a money-mover account with --address (the wallet that signs in)',
          [{ path: 'allowWalletSignIn', message: 'only for money movers with an address' }],
        );
      }
      const now = clock.now();
      const account: Account = {
        id: newId('acc', now),
        type: input.type,
        name: input.name,
        address: input.address,
        walletSignIn,
        createdAt: now,
      };
      await insertAccount(database.db, account);
      return account;
    },

    async findOrCreateAccount(input: NewAccount) {
      const [existing] = await listAccounts(database.db, { type: input.type, name: input.name });
      if (!existing) return { account: await service.createAccount(input), reused: false };
      const walletSignIn = input.allowWalletSignIn ?? false;
      if (existing.address !== input.address || existing.walletSignIn !== walletSignIn) {
        const what = `address ${existing.address ?? 'none'}, wallet sign-in ${existing.walletSignIn ? 'on' : 'off'}`;
        throw new AppError(
          'CONFLICT',
          `${input.type} account ${existing.id} named ${input.name} exists with ${what}; give another --name to create a new one`,
          [{ path: 'name', message: 'taken by an account with another address or sign-in setting' }],
        );
      }
      return { account: existing, reused: true };
    },

    listAccounts: () => listAccounts(database.db),

    async createApiKey(accountId: string): Promise<{ apiKey: string; key: ApiKey }> {
      if (!(await findAccount(database.db, accountId))) {
        throw new AppError('NOT_FOUND', `account ${accountId} does not exist`, [
          { path: 'account', message: 'no such account' },
        ]);
      }
      const now = clock.now();
      const apiKey = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const key: ApiKey = {
        id: newId('key', now),
        accountId,
        keyPrefix: apiKey.slice(0, KEY_PREFIX.length + 6),
        createdAt: now,
        revokedAt: null,
        lastUsedAt: null,
      };
      await insertApiKey(database.db, key, hashSecret(apiKey));
      return { apiKey, key };
    },

    /** The account of an id known to exist (a principal's): its deletion would be a bug, answered 404. */
    async getAccount(accountId: string): Promise<Account> {
      const account = await findAccount(database.db, accountId);
      if (!account) throw new AppError('NOT_FOUND', `account ${accountId} does not exist`);
      return account;
    },

    listApiKeys: (accountId: string) => listApiKeys(database.db, accountId),

    async revokeApiKey(keyId: string): Promise<void> {
      if (!(await revokeApiKey(database.db, keyId, clock.now()))) {
        throw new AppError('NOT_FOUND', `no live API key ${keyId}`, [
          { path: 'keyId', message: 'unknown or revoked' },
        ]);
      }
      credentialsEnded();
    },
  };
  return service;
}
