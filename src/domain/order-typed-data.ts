import { concat, hexToBytes, numberToBytes, stringToBytes } from 'viem';
import type { Address } from './address.ts';
import { keccak256Bytes, keccak256Hex } from './keccak.ts';

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
  { name: 'protocolFee', type: 'uint256' },
  { name: 'exclusivityDeadline', type: 'uint256' },
] as const;

const DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

export const ORDER_DOMAIN_NAME = 'Ferry';
export const ORDER_DOMAIN_VERSION = '1';

/**
 * An order's signed terms, the one shape the code uses for them: the escrow's `Order` struct with every uint256
 * as bigint (what viem encodes for the contract). The stored and served form is OrderTypedData;
 * buildOrderTypedData and orderTermsFrom convert between the two.
 */
export interface OrderTerms {
  readonly offerer: Address;
  readonly recipient: Address;
  readonly inputToken: Address;
  readonly outputToken: Address;
  readonly inputAmount: bigint;
  readonly outputAmount: bigint;
  readonly inputChainId: bigint;
  readonly outputChainId: bigint;
  readonly filler: Address;
  readonly nonce: bigint;
  /** Unix seconds (input-chain time); deposit() must happen at or before this. */
  readonly openDeadline: bigint;
  /** Unix seconds; fill() must happen at or before this (output-chain time), refund() only after it plus the grace. */
  readonly fillDeadline: bigint;
  /** Ferry's fee in input-token base units: the filler is paid inputAmount − protocolFee at settlement. */
  readonly protocolFee: bigint;
  /**
   * Unix seconds (output-chain time): until it only `filler` may fill; after it anyone may, until fillDeadline, and
   * the escrow pays whoever filled. `filler` = the zero address: open from the start.
   */
  readonly exclusivityDeadline: bigint;
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

/** The typed data the offerer signs for `terms` in `escrow` (on the input chain), uint256 as decimal strings. */
export function buildOrderTypedData(terms: OrderTerms, escrow: Address): OrderTypedData {
  return {
    domain: {
      name: ORDER_DOMAIN_NAME,
      version: ORDER_DOMAIN_VERSION,
      chainId: Number(terms.inputChainId),
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
      inputChainId: terms.inputChainId.toString(),
      outputChainId: terms.outputChainId.toString(),
      filler: terms.filler,
      nonce: terms.nonce.toString(),
      openDeadline: terms.openDeadline.toString(),
      fillDeadline: terms.fillDeadline.toString(),
      protocolFee: terms.protocolFee.toString(),
      exclusivityDeadline: terms.exclusivityDeadline.toString(),
    },
  };
}

/** The terms back from stored or served typed data (decimal strings to bigint). */
export function orderTermsFrom(typedData: OrderTypedData): OrderTerms {
  const m = typedData.message;
  return {
    offerer: m.offerer as Address,
    recipient: m.recipient as Address,
    inputToken: m.inputToken as Address,
    outputToken: m.outputToken as Address,
    inputAmount: BigInt(m.inputAmount),
    outputAmount: BigInt(m.outputAmount),
    inputChainId: BigInt(m.inputChainId),
    outputChainId: BigInt(m.outputChainId),
    filler: m.filler as Address,
    nonce: BigInt(m.nonce),
    openDeadline: BigInt(m.openDeadline),
    fillDeadline: BigInt(m.fillDeadline),
    // Typed data stored before the fee existed has no protocolFee: it carried none.
    protocolFee: BigInt(m.protocolFee ?? '0'),
    // Typed data stored before open filling has no exclusivityDeadline: its filler was exclusive throughout.
    exclusivityDeadline: BigInt(m.exclusivityDeadline ?? m.fillDeadline),
  };
}

const typeHash = (name: string, fields: readonly { name: string; type: string }[]) =>
  keccak256Bytes(stringToBytes(`${name}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`));
const ORDER_TYPE_HASH = typeHash('Order', ORDER_TYPE);
const DOMAIN_TYPE_HASH = typeHash('EIP712Domain', DOMAIN_TYPE);
const word = (value: bigint | number) => numberToBytes(value, { size: 32 });
const addressWord = (address: string) => concat([new Uint8Array(12), hexToBytes(address as `0x${string}`)]);

// One separator per (chain, escrow): a handful for the whole process.
const domainSeparators = new Map<string, Uint8Array>();
function domainSeparator(domain: OrderTypedData['domain']): Uint8Array {
  const key = `${domain.name}|${domain.version}|${domain.chainId}|${domain.verifyingContract}`;
  let separator = domainSeparators.get(key);
  if (!separator) {
    separator = keccak256Bytes(
      concat([
        DOMAIN_TYPE_HASH,
        keccak256Bytes(stringToBytes(domain.name)),
        keccak256Bytes(stringToBytes(domain.version)),
        word(domain.chainId),
        addressWord(domain.verifyingContract),
      ]),
    );
    domainSeparators.set(key, separator);
  }
  return separator;
}

/**
 * The signing hash, which is also the blockchain order id the escrow keys orders by: EIP-712's
 * keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(order)), encoded for this one fixed struct. viem's generic
 * `hashTypedData` parses the types and ABI-encodes each call (a third of POST /quotes under load); the
 * test compares the two over random orders.
 */
export function hashOrderTypedData(typedData: OrderTypedData): `0x${string}` {
  const m = typedData.message;
  const words = ORDER_TYPE.map(({ name, type }) =>
    type === 'address' ? addressWord(m[name]) : word(BigInt(m[name])),
  );
  const structHash = keccak256Bytes(concat([ORDER_TYPE_HASH, ...words]));
  return keccak256Hex(concat([new Uint8Array([0x19, 0x01]), domainSeparator(typedData.domain), structHash]));
}
