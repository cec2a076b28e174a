import { type Address, encodeFunctionData, encodePacked, type Hex, keccak256, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainError } from '../../chains/chain-error.ts';
import { loadLzArtifact } from '../../chains/layerzero/lz-artifacts.ts';
import {
  awaitLzReceipt,
  type LzCall,
  type LzChainClient,
  type LzFees,
  type SignedLz,
  sendLz,
  signLz,
  writeLz,
} from '../../chains/layerzero/lz-chain-client.ts';
import type { LzChainDeployment, LzDvnDeployment } from '../../chains/layerzero/lz-chain-deployment.ts';
import { type LzPacket, lzOrigin } from '../../chains/layerzero/lz-packet.ts';

/** How long a DVN's signed instruction stays valid on the destination chain. */
const INSTRUCTION_LIFETIME_SECONDS = 600n;

/**
 * One DVN attests a packet on the destination chain: its key signs the instruction "ReceiveUln302.verify(header,
 * payloadHash, confirmations)" and submits it through the DVN contract's `execute`, so ReceiveUln302 records the
 * DVN contract's address as the verifier. Answers the gas the transaction used.
 */
export async function dvnVerify(
  client: LzChainClient,
  dvnKey: Hex,
  dvn: LzDvnDeployment,
  destination: LzChainDeployment,
  packet: LzPacket,
  confirmations: bigint,
): Promise<bigint> {
  const sent = await sendDvnVerify(client, dvnKey, dvn, destination, packet, confirmations);
  return dvnVerifyGas(client, sent, dvn, destination, packet);
}

/** A DVN's verification sent and not yet mined. */
export interface SentDvnVerify {
  hash: Hex;
  call: LzCall;
}

/** The sending half of dvnVerify: signs the DVN's instruction and sends it (simulated), with `fees` if given. */
export async function sendDvnVerify(
  client: LzChainClient,
  dvnKey: Hex,
  dvn: LzDvnDeployment,
  destination: LzChainDeployment,
  packet: LzPacket,
  confirmations: bigint,
  fees?: LzFees,
): Promise<SentDvnVerify> {
  const call = await dvnVerifyCall(client, dvnKey, dvn, destination, packet, confirmations);
  return { hash: await sendLz(client, call, fees ? { fees } : {}), call };
}

/** A DVN's verification signed (simulated first) and not yet broadcast, for a delivery sent back to back. */
export async function signDvnVerify(
  client: LzChainClient,
  dvnKey: Hex,
  dvn: LzDvnDeployment,
  destination: LzChainDeployment,
  packet: LzPacket,
  confirmations: bigint,
  fees: LzFees,
): Promise<SignedLz> {
  const call = await dvnVerifyCall(client, dvnKey, dvn, destination, packet, confirmations);
  return signLz(client, call, { fees });
}

/** DVN.execute of the DVN key's signed instruction "ReceiveUln302.verify(header, payloadHash, confirmations)". */
async function dvnVerifyCall(
  client: LzChainClient,
  dvnKey: Hex,
  dvn: LzDvnDeployment,
  destination: LzChainDeployment,
  packet: LzPacket,
  confirmations: bigint,
): Promise<LzCall> {
  const callData = encodeFunctionData({
    abi: loadLzArtifact('ReceiveUln302').abi,
    functionName: 'verify',
    args: [packet.header, packet.payloadHash, confirmations],
  });
  const block = await client.publicClient.getBlock({ blockTag: 'latest' });
  const expiration = block.timestamp + INSTRUCTION_LIFETIME_SECONDS;
  const target = destination.receiveUln302;
  const hash = keccak256(
    encodePacked(['uint32', 'address', 'uint256', 'bytes'], [dvn.vid, target, expiration, callData]),
  );
  const signatures = await privateKeyToAccount(dvnKey).signMessage({ message: { raw: hash } });
  return {
    address: dvn.address,
    abi: loadLzArtifact('DVN').abi,
    functionName: 'execute',
    args: [[{ vid: dvn.vid, target, callData, expiration, signatures }]],
  };
}

/**
 * The waiting half of dvnVerify. DVN.execute swallows a failed instruction (it only emits an event), so success
 * is judged by ReceiveUln302's PayloadVerified for this DVN. Answers the gas the transaction used.
 */
export async function dvnVerifyGas(
  client: LzChainClient,
  sent: SentDvnVerify,
  dvn: LzDvnDeployment,
  destination: LzChainDeployment,
  packet: LzPacket,
): Promise<bigint> {
  const receipt = await awaitLzReceipt(client, sent.hash, sent.call);
  const target = destination.receiveUln302;
  const events = parseEventLogs({
    abi: loadLzArtifact('ReceiveUln302').abi,
    eventName: 'PayloadVerified',
    logs: receipt.logs,
  }) as unknown as {
    address: Address;
    args: { dvn?: Address };
  }[];
  const verified = events.some(
    (log) => sameAddress(log.address, target) && sameAddress(log.args.dvn, dvn.address),
  );
  if (!verified) {
    throw new ChainError(
      `DVN ${dvn.vid} on chain ${destination.chainId} did not verify packet ${packet.guid} (tx ${receipt.transactionHash})`,
    );
  }
  return receipt.gasUsed;
}

/** Whether ReceiveUln302 holds enough DVN verifications to commit the packet (the quorum of required DVNs). */
export async function isLzVerifiable(
  client: LzChainClient,
  destination: LzChainDeployment,
  packet: LzPacket,
  confirmations: bigint,
): Promise<boolean> {
  const abi = loadLzArtifact('ReceiveUln302').abi;
  const config = await client.publicClient.readContract({
    address: destination.receiveUln302,
    abi,
    functionName: 'getUlnConfig',
    args: [packet.receiver, packet.srcEid],
  });
  const committable = await client.publicClient.readContract({
    address: destination.receiveUln302,
    abi,
    functionName: 'verifiable',
    args: [{ ...(config as object), confirmations }, keccak256(packet.header), packet.payloadHash],
  });
  return committable === true;
}

/**
 * Moves a verified packet into the endpoint (ReceiveUln302.commitVerification → EndpointV2.verify). Anyone may
 * call it; it reverts unless every required DVN verified, and the endpoint refuses a sender the receiving OApp
 * has not set as its peer. Answers the gas used.
 */
export async function commitLzVerification(
  client: LzChainClient,
  destination: LzChainDeployment,
  packet: LzPacket,
): Promise<bigint> {
  const receipt = await writeLz(client, commitCall(destination, packet));
  return receipt.gasUsed;
}

/** ReceiveUln302.commitVerification of `packet` on `destination`, as a call to send. */
export function commitCall(destination: LzChainDeployment, packet: LzPacket): LzCall {
  return {
    address: destination.receiveUln302,
    abi: loadLzArtifact('ReceiveUln302').abi,
    functionName: 'commitVerification',
    args: [packet.header, packet.payloadHash],
  };
}

/**
 * The executor's step: EndpointV2.lzReceive delivers the committed message to the OApp. The endpoint checks the
 * message against the committed payload hash and clears it, so an altered message or a second delivery reverts.
 */
export async function executeLzReceive(
  client: LzChainClient,
  destination: LzChainDeployment,
  packet: LzPacket,
): Promise<{ gasUsed: bigint; transactionHash: Hex }> {
  const receipt = await writeLz(client, lzReceiveCall(destination, packet));
  return { gasUsed: receipt.gasUsed, transactionHash: receipt.transactionHash };
}

/** EndpointV2.lzReceive of `packet` on `destination` (no extra data), as a call to send. */
export function lzReceiveCall(destination: LzChainDeployment, packet: LzPacket): LzCall {
  return {
    address: destination.endpoint,
    abi: loadLzArtifact('EndpointV2').abi,
    functionName: 'lzReceive',
    args: [lzOrigin(packet), packet.receiver, packet.guid, packet.message, '0x'],
  };
}

function sameAddress(a: Address | undefined, b: Address): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}

/**
 * Where a packet stands on its destination endpoint: `delivered` (lzReceive ran: the hash is cleared and the
 * endpoint's lazy nonce passed it), `committed` (verified into the endpoint, waiting for lzReceive), `burnt`
 * (nilified or skipped by the receiver's delegate: never deliverable), or `open` (not committed yet).
 */
export async function lzInboundState(
  client: LzChainClient,
  destination: LzChainDeployment,
  packet: LzPacket,
): Promise<'delivered' | 'committed' | 'burnt' | 'open'> {
  const abi = loadLzArtifact('EndpointV2').abi;
  const path = [packet.receiver, packet.srcEid, packet.sender] as const;
  const [hash, lazyNonce] = (await Promise.all([
    client.publicClient.readContract({
      address: destination.endpoint,
      abi,
      functionName: 'inboundPayloadHash',
      args: [...path, packet.nonce],
    }),
    client.publicClient.readContract({
      address: destination.endpoint,
      abi,
      functionName: 'lazyInboundNonce',
      args: path,
    }),
  ])) as [Hex, bigint];
  if (BigInt(hash) === 0n) return packet.nonce <= lazyNonce ? 'delivered' : 'open';
  if (BigInt(hash) === 2n ** 256n - 1n) return 'burnt';
  return hash.toLowerCase() === packet.payloadHash.toLowerCase() ? 'committed' : 'open';
}

/** Whether `dvn` already verified `packet` on ReceiveUln302 with at least `confirmations`. */
export async function hasDvnVerified(
  client: LzChainClient,
  destination: LzChainDeployment,
  packet: LzPacket,
  dvn: Address,
  confirmations: bigint,
): Promise<boolean> {
  const [submitted, confirmed] = (await client.publicClient.readContract({
    address: destination.receiveUln302,
    abi: loadLzArtifact('ReceiveUln302').abi,
    functionName: 'hashLookup',
    args: [keccak256(packet.header), packet.payloadHash, dvn],
  })) as [boolean, bigint];
  return submitted && confirmed >= confirmations;
}
