import type { Account, Address, Hex, LocalAccount, TypedDataDefinition, WalletClient } from 'viem';
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

/** Signs a plain-text message (EIP-191 personal_sign) with the signer's account. */
export function signMessage(signer: Signer, message: string): Promise<Hex> {
  return isWalletClient(signer)
    ? signer.signMessage({ account: walletAccount(signer), message })
    : signer.signMessage({ message });
}
