import type { Address } from './address.ts';

export const ACCOUNT_TYPES = ['moneyMover', 'liquidityProvider'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** Who is calling: an account reached through an API key or through a Sign-In with Ethereum session. */
export interface Principal {
  readonly method: 'apiKey' | 'session';
  readonly accountId: string;
  readonly accountType: AccountType;
  /** Set for sessions: the signed-in wallet, which must be the offerer of everything it creates. */
  readonly sessionAddress: Address | null;
  /** Stable id of the credential, used for rate limits, stream limits and idempotency scope. */
  readonly credentialId: string;
}
