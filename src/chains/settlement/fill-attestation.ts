import type { Address, Hex } from 'viem';

/**
 * EIP-712 definition shared with contracts/AttesterMessenger.sol: the attester signs this for a fill it has checked
 * (final, by the designated filler, by the fill deadline), and the messenger settles the order in the escrow when
 * shown the signature. It binds the filler and the fill's block time, which the escrow checks against the order.
 */
export const FILL_ATTESTATION_TYPES = {
  FillAttestation: [
    { name: 'escrow', type: 'address' },
    { name: 'inputChainId', type: 'uint256' },
    { name: 'orderHash', type: 'bytes32' },
    { name: 'filler', type: 'address' },
    { name: 'fillTime', type: 'uint256' },
  ],
} as const;

/** Typed data the attester signs to let AttesterMessenger.relayFill settle `orderHash` in `escrow`. */
export function fillAttestationTypedData(args: {
  messenger: Address;
  escrow: Address;
  inputChainId: number | bigint;
  orderHash: Hex;
  filler: Address;
  fillTime: bigint;
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
    message: {
      escrow: args.escrow,
      inputChainId: BigInt(args.inputChainId),
      orderHash: args.orderHash,
      filler: args.filler,
      fillTime: args.fillTime,
    },
  } as const;
}
