import type { Account, Address, Hex, LocalAccount, TypedDataDefinition, WalletClient } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { createFerryClient, type FerryClient } from './ferry-client.js';
import type { OrderTypedData } from './types.js';

/** Who signs: a viem local account (privateKeyToAccount, mnemonicToAccount…) or a wallet client with an account. */
export type Signer = LocalAccount | WalletClient;

function isWalletClient(signer: Signer): signer is WalletClient {
  return 'transport' in signer && typeof (signer as WalletClient).request === 'function';
}

function walletAccount(client: WalletClient): Account | Address {
  const account = client.account;
  if (!account) throw new Error('the wallet client has no account: create it with `account`');
  return account;
}

/** The signer's address. */
export function signerAddress(signer: Signer): Address {
  if (!isWalletClient(signer)) return signer.address;
  const account = walletAccount(signer);
  return typeof account === 'string' ? account : account.address;
}

/**
 * Signs a quote's EIP-712 typed data (`quote.typedData` or the envelope's `typedData`) exactly as Ferry sent it,
 * with the offerer's account. Pass the result to `swaps.execute` as `signature`.
 */
export async function signQuote(signer: Signer, typedData: OrderTypedData): Promise<Hex> {
  const definition = typedData as unknown as TypedDataDefinition;
  if (!isWalletClient(signer)) {
    if (!signer.signTypedData) throw new Error('this account cannot sign typed data');
    return signer.signTypedData(definition);
  }
  return signer.signTypedData({ ...definition, account: walletAccount(signer) } as Parameters<
    WalletClient['signTypedData']
  >[0]);
}

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
  const signature = isWalletClient(account)
    ? await account.signMessage({ account: walletAccount(account), message })
    : await account.signMessage({ message });
  const { session } = await client.auth.verify({ message, signature, address });
  const { apiKey: _apiKey, sessionToken: _token, session: _session, ...rest } = client.options;
  return createFerryClient({ ...rest, session });
}
