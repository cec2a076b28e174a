import { type Hex, hashTypedData } from 'viem';
import type { Address } from './address.ts';
import { canonicalSignature, recoverSigner } from './order-signature.ts';

/** An offerer's EIP-2612 permit for a swap's deposit: spender the input chain's escrow, value its inputAmount. */
export interface SwapPermit {
  /** Unix seconds: the token refuses the permit after it. */
  readonly deadline: bigint;
  /** 65 bytes (r, s, v ∈ {27, 28}). */
  readonly signature: Hex;
  /**
   * The offerer's token nonce the permit was signed over (the token's nonces(offerer) when the swap came); null
   * for permits kept before the nonce was.
   */
  readonly nonce: bigint | null;
}

/** What the permit's EIP-712 digest binds: the token's domain and the owner's current permit nonce. */
export interface PermitTerms {
  readonly domain: { readonly name: string; readonly version: string };
  readonly chainId: number;
  readonly token: Address;
  readonly owner: Address;
  readonly spender: Address;
  readonly value: bigint;
  readonly nonce: bigint;
  readonly deadline: bigint;
}

/** EIP-2612's typed data, as wallets sign it. */
export function permitTypedData(terms: PermitTerms) {
  return {
    domain: {
      name: terms.domain.name,
      version: terms.domain.version,
      chainId: terms.chainId,
      verifyingContract: terms.token,
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
      owner: terms.owner,
      spender: terms.spender,
      value: terms.value,
      nonce: terms.nonce,
      deadline: terms.deadline,
    },
  } as const;
}

/**
 * The permit's signature in the 65-byte form the token's ECDSA takes, when it recovers `terms.owner`; else null
 * (another signer, another nonce, amount or deadline, a malleable or malformed signature).
 */
export function verifiedPermitSignature(terms: PermitTerms, signature: Hex): Hex | null {
  const canonical = canonicalSignature(signature);
  if (canonical === null) return null;
  const signer = recoverSigner(hashTypedData(permitTypedData(terms)), canonical);
  return signer !== null && signer.toLowerCase() === terms.owner.toLowerCase() ? canonical : null;
}
