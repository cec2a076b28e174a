import { randomBytes } from 'node:crypto';
import { type Hex, hashMessage, recoverMessageAddress } from 'viem';
import { generateSiweNonce, parseSiweMessage, type SiweMessage } from 'viem/siwe';
import type { SignatureChecks } from '../chains/signature-checks.ts';
import { type Address, normalizeAddress, sameAddress } from '../domain/address.ts';
import { AppError, fieldError } from '../domain/app-error.ts';
import { newId } from '../domain/ids.ts';
import type { Principal } from '../domain/principal.ts';
import { findAccountByKeyHash, findSignInAccount, insertAccount } from '../store/tables/accounts-store.ts';
import {
  consumeNonce,
  endSessionsBeyond,
  findLiveSession,
  insertNonce,
  insertSession,
  revokeSession,
} from '../store/tables/sessions-store.ts';
import { hashSecret } from './account-service.ts';
import type { ServiceDeps } from './service-deps.ts';

const unauthorized = (message: string, path: string) => fieldError('UNAUTHORIZED', path, message);

/** Sign-In with Ethereum sessions and the resolution of credentials (API keys, session tokens) to principals. */
export interface AuthService {
  /** A single-use nonce, valid for SIWE_NONCE_TTL_SECONDS; the expiry sweeper deletes it if it is never used. */
  issueNonce(): Promise<string>;
  /**
   * Verifies a signed sign-in message and opens a session for the wallet's money-mover account. `admit` runs once
   * the signature has proved the address and before the nonce is spent: it may refuse (throw), e.g. the
   * per-address sign-in limit, leaving nothing written.
   */
  verify(input: SignInInput, admit?: (address: Address) => Promise<void>): Promise<SignedIn>;
  logout(principal: Principal): Promise<void>;
  /** Resolves an API key; null when unknown or revoked (the caller answers 401). */
  principalFromApiKey(apiKey: string): Promise<Principal | null>;
  principalFromSession(token: string): Promise<Principal | null>;
}

/** A signed EIP-4361 message, as POST /auth/verify takes it. */
export interface SignInInput {
  readonly message: string;
  readonly signature: `0x${string}`;
  readonly address: string;
}

/** The session a sign-in opened: its token (shown once), wallet, end and account. */
export interface SignedIn {
  readonly token: string;
  readonly address: Address;
  readonly expiresAt: Date;
  readonly accountId: string;
}

/**
 * Every check of EIP-4361: structure, domain, chain, times, then the signature: ECDSA without a chain call, or,
 * when the address is a contract on the message's chain (a Safe, a smart account), its EIP-1271 isValidSignature
 * over the message's EIP-191 hash.
 */
async function checkSiwe(
  input: SignInInput,
  now: Date,
  served: {
    readonly siweDomains: readonly string[];
    readonly chainIds: ReadonlySet<number>;
    readonly contractSigned: (
      chainId: number,
      address: Address,
      hash: Hex,
      signature: Hex,
    ) => Promise<boolean>;
  },
) {
  let fields: Partial<SiweMessage>;
  try {
    fields = parseSiweMessage(input.message);
  } catch {
    fields = {};
  }
  if (
    !fields.address ||
    !fields.domain ||
    !fields.nonce ||
    !fields.uri ||
    !fields.version ||
    !fields.chainId
  ) {
    throw fieldError('VALIDATION_ERROR', 'body.message', 'is not an EIP-4361 sign-in message');
  }
  const address = normalizeAddress(input.address, 'body.address');
  if (!sameAddress(fields.address, address)) {
    throw unauthorized('the message is signed in for another address', 'body.address');
  }
  if (!served.siweDomains.includes(fields.domain)) {
    throw unauthorized(
      `domain ${fields.domain} is not this service (${served.siweDomains.join(', ')})`,
      'body.message',
    );
  }
  if (!served.chainIds.has(fields.chainId)) {
    throw unauthorized(`chain id ${fields.chainId} is not served here`, 'body.message');
  }
  if (fields.expirationTime && fields.expirationTime.getTime() <= now.getTime()) {
    throw unauthorized('the sign-in message has expired', 'body.message');
  }
  if (fields.notBefore && fields.notBefore.getTime() > now.getTime()) {
    throw unauthorized('the sign-in message is not valid yet', 'body.message');
  }
  let recovered: string | null = null;
  try {
    recovered = await recoverMessageAddress({ message: input.message, signature: input.signature });
  } catch {}
  if (recovered !== null && sameAddress(recovered, address)) return { address, nonce: fields.nonce };
  const hash = hashMessage(input.message);
  if (await served.contractSigned(fields.chainId, address, hash, input.signature)) {
    return { address, nonce: fields.nonce };
  }
  if (recovered === null) throw unauthorized('the signature is malformed', 'body.signature');
  throw unauthorized('the signature does not match the address', 'body.signature');
}

export function createAuthService({
  database,
  clock,
  config,
  registry,
  credentialsEnded = () => {},
  signatures,
}: ServiceDeps & {
  /** Told when sessions end here (logout, the per-address cap), so streams close at once on every instance. */
  credentialsEnded?: () => void;
  /** Checks a contract wallet's EIP-1271 signature; absent: only ECDSA signers sign in. */
  signatures?: SignatureChecks;
}): AuthService {
  const chainIds = new Set(registry.chains.map((c) => c.chainId));
  /** A contract signer only: an address without code on the message's chain has not signed. */
  async function contractSigned(chainId: number, address: Address, hash: Hex, signature: Hex) {
    const chain = registry.chains.find((c) => c.chainId === chainId);
    if (!signatures || !chain || !(await signatures.isContract(chain.name, address))) return false;
    return signatures.contractSigned(chain.name, address, hash, signature);
  }

  return {
    async issueNonce(): Promise<string> {
      const nonce = generateSiweNonce();
      await insertNonce(
        database.db,
        nonce,
        new Date(clock.now().getTime() + config.siweNonceTtlSeconds * 1000),
      );
      return nonce;
    },

    async verify(input: SignInInput, admit) {
      const now = clock.now();
      const { address, nonce } = await checkSiwe(input, now, {
        siweDomains: config.siweDomains,
        chainIds,
        contractSigned,
      });
      await admit?.(address);
      // Consumed only after the signature checks out, so a forged attempt cannot burn someone's nonce.
      if (!(await consumeNonce(database.db, nonce, now))) {
        throw unauthorized('the nonce is unknown, expired or already used', 'body.message');
      }
      // Only an account open to wallet sign-in: an operator's account with this address is not joined (its
      // requests may have been made for other offerers), the wallet gets an account of its own instead.
      let account = await findSignInAccount(database.db, address);
      if (!account) {
        account = {
          id: newId('acc', now),
          type: 'moneyMover',
          name: address,
          address,
          walletSignIn: true,
          createdAt: now,
        };
        await insertAccount(database.db, account);
      }
      const token = `fsn_${randomBytes(32).toString('base64url')}`;
      const expiresAt = new Date(now.getTime() + config.sessionTtlSeconds * 1000);
      const accountId = account.id;
      const ended = await database.transaction(async (trx) => {
        await insertSession(trx, {
          id: newId('ses', now),
          tokenHash: hashSecret(token),
          accountId,
          address,
          createdAt: now,
          expiresAt,
        });
        return endSessionsBeyond(trx, address, config.signIn.sessionsPerAddress, now);
      });
      if (ended > 0) credentialsEnded();
      return { token, address, expiresAt, accountId };
    },

    async logout(principal: Principal): Promise<void> {
      if (principal.method !== 'session') throw new AppError('FORBIDDEN', 'only a session can log out');
      await revokeSession(database.db, principal.credentialId, clock.now());
      credentialsEnded();
    },

    async principalFromApiKey(apiKey: string): Promise<Principal | null> {
      const found = await findAccountByKeyHash(database.db, hashSecret(apiKey));
      if (!found || found.revoked) return null;
      return {
        method: 'apiKey',
        accountId: found.accountId,
        accountType: found.accountType,
        sessionAddress: null,
        credentialId: found.keyId,
      };
    },

    async principalFromSession(token: string): Promise<Principal | null> {
      const found = await findLiveSession(database.db, hashSecret(token), clock.now());
      if (!found) return null;
      return {
        method: 'session',
        accountId: found.accountId,
        accountType: found.accountType,
        sessionAddress: found.address,
        credentialId: found.sessionId,
      };
    },
  };
}
