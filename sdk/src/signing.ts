import type {
  Account,
  Address,
  Hex,
  LocalAccount,
  PublicClient,
  TypedDataDefinition,
  WalletClient,
} from 'viem';
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

/** What `signPermit` needs besides the quote: the input token's permit domain and the offerer's permit nonce. */
export interface SignPermitOptions {
  /** The input token's EIP-2612 domain: `permit` of the token in `GET /api/public/chains` (null: no permits). */
  readonly permit: { readonly name: string; readonly version: string };
  /** The offerer's current `nonces(offerer)` at the input token; or give `publicClient` to read it. */
  readonly nonce?: bigint;
  /** A viem public client on the input chain, to read the nonce when `nonce` is not given. */
  readonly publicClient?: PublicClient;
  /** Unix seconds; at least the order's `openDeadline` (the default). */
  readonly deadline?: bigint;
}

const noncesAbi = [
  {
    type: 'function',
    name: 'nonces',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;

/**
 * Signs the EIP-2612 permit a gasless swap carries (`swaps.execute({ ..., permit })`): owner the offerer, spender
 * the input chain's escrow (the quote's `verifyingContract`), value the quote's `inputAmount`, in the input token's
 * permit domain. Ferry then deposits with it: the offerer sends no approve and needs no gas.
 */
export async function signPermit(
  signer: Signer,
  typedData: OrderTypedData,
  options: SignPermitOptions,
): Promise<{ deadline: string; signature: Hex }> {
  const order = typedData.message as Record<string, unknown>;
  const domain = typedData.domain as Record<string, unknown>;
  const owner = order.offerer as Address;
  const token = order.inputToken as Address;
  let nonce = options.nonce;
  if (nonce === undefined) {
    if (!options.publicClient) throw new Error('signPermit needs `nonce` or a `publicClient` to read it');
    nonce = await options.publicClient.readContract({
      address: token,
      abi: noncesAbi,
      functionName: 'nonces',
      args: [owner],
    });
  }
  const deadline = options.deadline ?? BigInt(order.openDeadline as string);
  const permit = {
    domain: {
      name: options.permit.name,
      version: options.permit.version,
      chainId: Number(domain.chainId),
      verifyingContract: token,
    },
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: {
      owner,
      spender: domain.verifyingContract as Address,
      value: BigInt(order.inputAmount as string),
      nonce,
      deadline,
    },
  } as const;
  const signature = isWalletClient(signer)
    ? await signer.signTypedData({ ...permit, account: walletAccount(signer) })
    : await signTypedDataWith(signer, permit);
  return { deadline: deadline.toString(), signature };
}

function signTypedDataWith(account: LocalAccount, definition: TypedDataDefinition): Promise<Hex> {
  if (!account.signTypedData) throw new Error('this account cannot sign typed data');
  return account.signTypedData(definition);
}
