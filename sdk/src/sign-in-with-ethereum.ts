import { createSiweMessage } from 'viem/siwe';
import { createFerryClient, type FerryClient } from './ferry-client.js';
import { type Signer, signerAddress, signMessage } from './signing.js';

export interface SignInOptions {
  /** Any client for the server (its credentials are not used: the returned client carries the session). */
  client: FerryClient;
  /** The wallet signing in; it becomes the money mover of its address. */
  account: Signer;
  /** The message's domain: the host Ferry accepts (its SIWE_DOMAINS, default the address it listens on). */
  domain: string;
  /** The message's URI, e.g. `https://ferry.example`. */
  uri: string;
  /** A chain id Ferry serves (GET /api/public/chains). */
  chainId: number;
  statement?: string;
  /** When the message stops being valid (default: 5 minutes from now). */
  expirationTime?: Date;
}

/**
 * Sign-In with Ethereum (EIP-4361): fetches a nonce, builds and signs the message, verifies it, and returns a new
 * client that acts with the session (`client.session` holds the token, address and expiry).
 */
export async function signInWithEthereum(options: SignInOptions): Promise<FerryClient> {
  const { client, account } = options;
  const address = signerAddress(account);
  const { nonce } = await client.auth.nonce();
  const now = new Date();
  const message = createSiweMessage({
    address,
    chainId: options.chainId,
    domain: options.domain,
    nonce,
    uri: options.uri,
    version: '1',
    issuedAt: now,
    expirationTime: options.expirationTime ?? new Date(now.getTime() + 5 * 60_000),
    statement: options.statement ?? 'Sign in to Ferry',
  });
  const signature = await signMessage(account, message);
  const { session } = await client.auth.verify({ message, signature, address });
  const { apiKey: _apiKey, sessionToken: _token, session: _session, ...rest } = client.options;
  return createFerryClient({ ...rest, session });
}
