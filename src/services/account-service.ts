import { createHash, randomBytes } from 'node:crypto';
import type { Address } from '../domain/address.ts';
import { AppError } from '../domain/app-error.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import type { AccountType } from '../domain/principal.ts';
import type { Account, ApiKey } from '../domain/records.ts';
import {
  findAccount,
  insertAccount,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
} from '../store/accounts-store.ts';
import type { FerryDatabase } from '../store/database.ts';

/** Keys and session tokens are random 256-bit secrets, so a plain SHA-256 is a safe, fast lookup hash. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

const KEY_PREFIX = 'fry_';

/** Accounts and their API keys, for the operator's CLI and the API's own account route. */
export interface AccountService {
  createAccount(input: {
    type: AccountType;
    name: string;
    address: Address | null;
    /** Let Sign-In with Ethereum by `address` act as this money-mover account (off by default). */
    allowWalletSignIn?: boolean;
  }): Promise<Account>;
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
  return {
    async createAccount(input: {
      type: AccountType;
      name: string;
      address: Address | null;
      allowWalletSignIn?: boolean;
    }): Promise<Account> {
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
}
