import { type Hex, parseGwei, size } from 'viem';
import { ChainError } from '../../chains/chain-error.ts';
import {
  awaitLzReceipt,
  broadcastLz,
  type LzChainClient,
  type LzFees,
  signLz,
} from '../../chains/layerzero/lz-chain-client.ts';
import type { LzChainDeployment, LzDvnDeployment } from '../../chains/layerzero/lz-chain-deployment.ts';
import type { LzPacket } from '../../chains/layerzero/lz-packet.ts';
import { commitCall, dvnVerifyGas, lzReceiveCall, signDvnVerify } from './lz-delivery.ts';

/*
 * A delivery in one block: the DVNs' verifications, the commit and lzReceive are all sent before any is mined.
 * Nothing after the verifications can be simulated or estimated (against the chain as it is, the commit reverts
 * with LZ_ULN_Verifying), so the executor's two transactions carry fixed gas limits and consecutive nonces.
 *
 * Order within the block: anvil (the devnets run its default `--order fees`) sorts pending transactions of
 * different senders by priority fee, highest first, and by arrival between equal fees; one sender's by nonce.
 * Measured on anvil 1.7 with 1 s blocks: two DVN transactions at 2 gwei and the executor's two at 1 gwei were
 * mined in that order in one block; with the tips swapped the executor's came first. So the DVNs pay the higher
 * tip, and they are also sent first, which keeps the order on a node that sorts by arrival.
 */
const DVN_TIP = parseGwei('2');
const EXECUTOR_TIP = parseGwei('1');

/**
 * commitVerification measured ~72,500 gas (bench scenario 12) and ~83,000 on a path's first packet, which also
 * asks the receiving OApp to initialise the path: 200,000 leaves room for both. An unused limit costs nothing.
 */
const COMMIT_GAS = 200_000n;
/**
 * EndpointV2.lzReceive's own work around the OApp's: checking and clearing the payload hash, advancing the lazy
 * inbound nonce (a fresh slot on a path's first packet, ~22,100), hashing the message, the call and PacketDelivered:
 * about 35,000 at most by its storage reads and writes; 60,000 allowed.
 */
const ENDPOINT_RECEIVE_OVERHEAD = 60_000n;
/**
 * Calldata at 40 gas a byte: EIP-7623's floor price for a byte that is not zero (10 per token, 4 tokens a byte)
 * bounds both the standard 16 and the floor, whichever the chain charges.
 */
const CALLDATA_GAS_PER_BYTE = 40n;
/** ABI head and encoding of lzReceive's arguments besides the message: selector, origin, receiver, guid, offsets. */
const RECEIVE_CALLDATA_FIXED_BYTES = 4n + 32n * 10n;
const INTRINSIC_GAS = 21_000n;

/**
 * The gas limit of the executor's lzReceive transaction: what the sender's options ask the executor to give
 * lzReceive (`optionGas`), raised by a quarter since the OApp's call gets at most 63/64 of what is left when the
 * endpoint makes it and the options are the sender's estimate, plus the endpoint's own work and the
 * transaction's base cost and calldata. A limit that still proves short reverts the transaction; the packet then
 * goes back to the relay's step-by-step path, which estimates.
 */
export function lzReceiveGasLimit(optionGas: bigint, packet: LzPacket): bigint {
  const calldata = RECEIVE_CALLDATA_FIXED_BYTES + BigInt(size(packet.message));
  return (optionGas * 5n) / 4n + ENDPOINT_RECEIVE_OVERHEAD + INTRINSIC_GAS + calldata * CALLDATA_GAS_PER_BYTE;
}

/** A DVN that has yet to verify the packet: its contract, its key and a client signing with that key. */
export interface PendingDvn {
  dvn: LzDvnDeployment;
  key: Hex;
  client: LzChainClient;
}

export interface PipelinedDeliveryInput {
  destination: LzChainDeployment;
  packet: LzPacket;
  dvns: readonly PendingDvn[];
  executor: LzChainClient;
  /** The source chain's confirmations, which the DVNs attest. */
  confirmations: bigint;
  /** From the packet's executor options (lzReceiveGasOf). */
  optionGas: bigint;
}

export interface PipelinedDelivery {
  dvnGas: bigint[];
  commitGas: bigint;
  receiveGas: bigint;
  receiveTx: Hex;
}

/**
 * Sends the DVNs' verifications, then the commit and lzReceive, and only then waits for the four receipts, so on
 * a chain with blocks they are mined together. Throws if any step failed or reverted on chain (a verification
 * mined a block after the commit, the OApp refusing the message, a gas limit short): the caller tries the packet
 * again step by step, with simulation, which skips what did land and names what is refused.
 */
export async function deliverPipelined(input: PipelinedDeliveryInput): Promise<PipelinedDelivery> {
  const { destination, packet, executor } = input;
  const block = await executor.publicClient.getBlock({ blockTag: 'latest' });
  // Twice the base fee covers its rise over several full blocks (12.5 % a block at most).
  const fees = (tip: bigint): LzFees => ({
    maxFeePerGas: (block.baseFeePerGas ?? 0n) * 2n + tip,
    maxPriorityFeePerGas: tip,
  });
  // Everything is signed before anything is broadcast: the four then go out back to back, a few local calls apart,
  // so a block is rarely cut between them (and if one is, they land in two blocks, still in order).
  const [verifications, nonce] = await Promise.all([
    Promise.all(
      input.dvns.map(async (pending) => ({
        pending,
        signed: await signDvnVerify(
          pending.client,
          pending.key,
          pending.dvn,
          destination,
          packet,
          input.confirmations,
          fees(DVN_TIP),
        ),
      })),
    ),
    executor.publicClient.getTransactionCount({ address: executor.account, blockTag: 'pending' }),
  ]);
  const commit = await signLz(executor, commitCall(destination, packet), {
    unsimulated: { gas: COMMIT_GAS, nonce, fees: fees(EXECUTOR_TIP) },
  });
  const receive = await signLz(executor, lzReceiveCall(destination, packet), {
    unsimulated: {
      gas: lzReceiveGasLimit(input.optionGas, packet),
      nonce: nonce + 1,
      fees: fees(EXECUTOR_TIP),
    },
  });
  for (const { pending, signed } of verifications) await broadcastLz(pending.client, signed);
  await broadcastLz(executor, commit);
  await broadcastLz(executor, receive);
  const [dvnGas, committed, received] = await Promise.allSettled([
    Promise.all(
      verifications.map(({ pending, signed }) =>
        dvnVerifyGas(pending.client, signed, pending.dvn, destination, packet),
      ),
    ),
    awaitLzReceipt(executor, commit.hash, commit.call),
    awaitLzReceipt(executor, receive.hash, receive.call),
  ]);
  if (dvnGas.status === 'rejected' || committed.status === 'rejected' || received.status === 'rejected') {
    throw pipelineFailure(packet, [dvnGas, committed, received]);
  }
  return {
    dvnGas: dvnGas.value,
    commitGas: committed.value.gasUsed,
    receiveGas: received.value.gasUsed,
    receiveTx: received.value.transactionHash,
  };
}

function pipelineFailure(packet: LzPacket, outcomes: readonly PromiseSettledResult<unknown>[]): ChainError {
  const failed = outcomes.flatMap((outcome) =>
    outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
  );
  const reasons = failed.map((reason) => (reason instanceof Error ? reason.message : String(reason)));
  return new ChainError(`delivering packet ${packet.guid} in one block failed: ${reasons.join('; ')}`, {
    cause: failed[0],
  });
}
