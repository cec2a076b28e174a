import { type Hex, parseAbiParameters } from 'viem';
import { LZ_DEVNET_MAX_MESSAGE_SIZE } from '../layerzero/lz-oapp-config.ts';
import { lzReceiveOptions } from '../layerzero/lz-packet.ts';

/** FerryApp's proof message, abi.encode(escrow, filler, FillProof[]): what a DVN quorum vouches for. */
export const PROOF_MESSAGE = parseAbiParameters(
  'address escrow, address filler, (bytes32 orderHash, address inputToken, uint256 inputAmount, uint256 protocolFee, uint256 fillDeadline, address exclusiveFiller, uint256 exclusivityDeadline, uint256 fillTime)[] proofs',
);

/**
 * The most fills one proof message can carry: FerryApp's message is abi.encode(escrow, filler, FillProof[]), 128
 * bytes of head and array length plus 256 per proof (eight words), and the devnets' executor takes at most
 * LZ_DEVNET_MAX_MESSAGE_SIZE (10,000) bytes. The worker and the reference LP bot prove one order per message.
 */
export const MAX_PROOFS_PER_MESSAGE = Math.floor((LZ_DEVNET_MAX_MESSAGE_SIZE - 128) / 256);

/**
 * Gas the executor is asked to give the input chain's lzReceive (EndpointV2.lzReceive down through FerryApp to the
 * escrow's settleFills) for `proofs` fills whose input tokens form `tokenRuns` runs of consecutive equal tokens (the
 * escrow pays the filler, and adds to the fee recipient's accrued fees, once per run). Measured (`npm run bench`,
 * scenario 12): about 56,000 for one proof and 8,200 per further proof of the same token. The base adds, with margin,
 * the worst case of one run's payout and fee credit (a cold token, the filler paid, or credited when the token refuses,
 * and the fee recipient's credit, each from zero: about 2 × 30,000), and
 * each further run as much again; the per-proof figure is almost twice the measured one. Too little gas leaves the
 * message committed until someone executes it with more; too much only costs the messaging fee.
 */
export function proveReceiveGas(proofs: number, tokenRuns = 1): bigint {
  return 150_000n + 15_000n * BigInt(proofs) + 60_000n * BigInt(Math.max(0, tokenRuns - 1));
}

/** How many runs of consecutive equal input tokens `orders` make, in the order a prove() call lists them. */
export function tokenRunsOf(orders: readonly { readonly inputToken: string }[]): number {
  return orders.filter(
    (order, i) => i === 0 || order.inputToken.toLowerCase() !== orders[i - 1]?.inputToken.toLowerCase(),
  ).length;
}

/** LayerZero type-3 options (executor lzReceive gas) for a message proving `proofs` fills in `tokenRuns` runs. */
export function proveOptions(proofs: number, tokenRuns = 1): Hex {
  if (!Number.isInteger(proofs) || proofs < 1 || proofs > MAX_PROOFS_PER_MESSAGE)
    throw new RangeError(`a proof message carries 1 to ${MAX_PROOFS_PER_MESSAGE} fills, not ${proofs}`);
  if (!Number.isInteger(tokenRuns) || tokenRuns < 1 || tokenRuns > proofs)
    throw new RangeError(`a proof of ${proofs} fills has 1 to ${proofs} token runs, not ${tokenRuns}`);
  return lzReceiveOptions(proveReceiveGas(proofs, tokenRuns));
}
