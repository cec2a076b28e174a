import { type Address, type Hex, hashTypedData } from 'viem';
import { ORDER_TYPE } from '../domain/order-typed-data.ts';

/**
 * EIP-712 definitions shared with contracts/FerryEscrow.sol and contracts/AttesterMessenger.sol.
 * The escrow hashes orders with exactly these types; changing a field here without changing the contract
 * (and redeploying) makes every signature invalid.
 */
export const ORDER_TYPES = { Order: ORDER_TYPE } as const;

export const FILL_ATTESTATION_TYPES = {
  FillAttestation: [
    { name: 'escrow', type: 'address' },
    { name: 'inputChainId', type: 'uint256' },
    { name: 'orderHash', type: 'bytes32' },
  ],
} as const;

export interface FerryOrder {
  offerer: Address;
  recipient: Address;
  inputToken: Address;
  outputToken: Address;
  inputAmount: bigint;
  outputAmount: bigint;
  inputChainId: bigint;
  outputChainId: bigint;
  filler: Address;
  nonce: bigint;
  /** Unix seconds; deposit() must happen at or before this. */
  openDeadline: bigint;
  /** Unix seconds; fill() must happen at or before this, refund() only after it. */
  fillDeadline: bigint;
}

/** The escrow's EIP-712 domain on the order's input chain. */
export function orderDomain(inputChainId: number | bigint, escrow: Address) {
  return { name: 'Ferry', version: '1', chainId: BigInt(inputChainId), verifyingContract: escrow } as const;
}

/** Typed data for signTypedData / eth_signTypedData_v4; the offerer signs this. */
export function orderTypedData(order: FerryOrder, escrow: Address) {
  return {
    domain: orderDomain(order.inputChainId, escrow),
    types: ORDER_TYPES,
    primaryType: 'Order',
    message: order,
  } as const;
}

/** The order id: equal to FerryEscrow.hashOrder(order) on the input chain. */
export function hashOrder(order: FerryOrder, escrow: Address): Hex {
  return hashTypedData(orderTypedData(order, escrow));
}

/** Typed data the attester signs to let AttesterMessenger.relayFill settle `orderHash` in `escrow`. */
export function fillAttestationTypedData(args: {
  messenger: Address;
  escrow: Address;
  inputChainId: number | bigint;
  orderHash: Hex;
}) {
  return {
    domain: {
      name: 'Ferry Attester',
      version: '1',
      chainId: BigInt(args.inputChainId),
      verifyingContract: args.messenger,
    },
    types: FILL_ATTESTATION_TYPES,
    primaryType: 'FillAttestation',
    message: { escrow: args.escrow, inputChainId: BigInt(args.inputChainId), orderHash: args.orderHash },
  } as const;
}
