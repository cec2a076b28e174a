import { hashTypedData } from 'viem';
import type { Address } from './address.ts';

/** The EIP-712 struct the escrow verifies; its field order is part of the on-chain type hash. */
export const ORDER_TYPE = [
  { name: 'offerer', type: 'address' },
  { name: 'recipient', type: 'address' },
  { name: 'inputToken', type: 'address' },
  { name: 'outputToken', type: 'address' },
  { name: 'inputAmount', type: 'uint256' },
  { name: 'outputAmount', type: 'uint256' },
  { name: 'inputChainId', type: 'uint256' },
  { name: 'outputChainId', type: 'uint256' },
  { name: 'filler', type: 'address' },
  { name: 'nonce', type: 'uint256' },
  { name: 'openDeadline', type: 'uint256' },
  { name: 'fillDeadline', type: 'uint256' },
] as const;

const DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

export const ORDER_DOMAIN_NAME = 'Ferry';
export const ORDER_DOMAIN_VERSION = '1';

export interface OrderTerms {
  readonly offerer: Address;
  readonly recipient: Address;
  readonly inputToken: Address;
  readonly outputToken: Address;
  readonly inputAmount: bigint;
  readonly outputAmount: bigint;
  readonly inputChainId: number;
  readonly outputChainId: number;
  readonly filler: Address;
  readonly nonce: bigint;
  readonly openDeadline: number;
  readonly fillDeadline: number;
}

/**
 * The typed data as it travels in JSON: uint256 values are decimal strings, which viem and
 * eth_signTypedData_v4 wallets both accept, so a client can sign the object exactly as received.
 */
export interface OrderTypedData {
  readonly domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  readonly types: { EIP712Domain: typeof DOMAIN_TYPE; Order: typeof ORDER_TYPE };
  readonly primaryType: 'Order';
  readonly message: Record<(typeof ORDER_TYPE)[number]['name'], string>;
}

export function buildOrderTypedData(terms: OrderTerms, escrow: Address): OrderTypedData {
  return {
    domain: {
      name: ORDER_DOMAIN_NAME,
      version: ORDER_DOMAIN_VERSION,
      chainId: terms.inputChainId,
      verifyingContract: escrow,
    },
    types: { EIP712Domain: DOMAIN_TYPE, Order: ORDER_TYPE },
    primaryType: 'Order',
    message: {
      offerer: terms.offerer,
      recipient: terms.recipient,
      inputToken: terms.inputToken,
      outputToken: terms.outputToken,
      inputAmount: terms.inputAmount.toString(),
      outputAmount: terms.outputAmount.toString(),
      inputChainId: String(terms.inputChainId),
      outputChainId: String(terms.outputChainId),
      filler: terms.filler,
      nonce: terms.nonce.toString(),
      openDeadline: String(terms.openDeadline),
      fillDeadline: String(terms.fillDeadline),
    },
  };
}

/** The signing hash, which is also the blockchain order id the escrow keys orders by. */
export function hashOrderTypedData(typedData: OrderTypedData): `0x${string}` {
  return hashTypedData(typedData as unknown as Parameters<typeof hashTypedData>[0]);
}
