import type { Address, Hex } from 'viem';

/**
 * EIP-712 definition shared with contracts/AttesterMessenger.sol: the attester signs this for an order whose
 * fill it has checked, and the messenger settles the order in the escrow when shown the signature.
 */
export const FILL_ATTESTATION_TYPES = {
  FillAttestation: [
    { name: 'escrow', type: 'address' },
    { name: 'inputChainId', type: 'uint256' },
    { name: 'orderHash', type: 'bytes32' },
  ],
} as const;

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
