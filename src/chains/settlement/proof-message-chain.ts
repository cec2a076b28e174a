import { encodeFunctionData, type Hex, keccak256, parseEventLogs } from 'viem';
import type { OrderTerms } from '../../domain/order-typed-data.ts';
import type { SkipReason } from '../../domain/settlement-observation.ts';
import { type Chain, type ChainRegistry, registryChain, registryError } from '../chain-registry.ts';
import { loadArtifact } from '../contract-artifacts.ts';
import { loadLzArtifact } from '../layerzero/lz-artifacts.ts';
import { decodeLzPacket, type LzPacket, lzOrigin } from '../layerzero/lz-packet.ts';
import { publicClientsFor, type RpcErrorCounter } from '../viem-client.ts';
import type { ContractCall } from './contract-call.ts';

const appAbi = loadArtifact('FerryApp').abi;
const escrowAbi = loadArtifact('FerryEscrow').abi;
/** FerryEscrow.SkipReason, by its enum value. */
const SKIP_REASONS: readonly SkipReason[] = ['NotActive', 'WrongTerms', 'LateFill', 'WrongFiller'];

/**
 * Where a proof message stands on the input chain: `pending` (not enough DVN verifications yet), `verified` (the
 * required DVNs verified it in the receive library: anyone may commit it), `committed` (the endpoint holds its
 * payload hash: anyone may execute it), `delivered` (executed: the endpoint cleared it).
 */
export type ProofMessageState = 'pending' | 'verified' | 'committed' | 'delivered';

/** The LayerZero side of settlement: FerryApp's prove on the output chain and a message's way into the input chain. */
export interface ProofMessageChain {
  /** FerryApp.quoteProve(orders): the native fee prove(orders) needs now (orders of one input chain). */
  quoteProve(outputChain: string, orders: readonly OrderTerms[], options: Hex): Promise<bigint>;
  /** FerryApp.prove(orders) on the output chain, paying `fee` (quoteProve's answer) as the call's value. */
  proveCall(outputChain: string, orders: readonly OrderTerms[], fee: bigint, options: Hex): ContractCall;
  /** The LayerZero packet the proof message `guid` went out as (EndpointV2's PacketSent in transaction `txHash`). */
  proofPacket(outputChain: string, txHash: Hex, guid: Hex): Promise<LzPacket | null>;
  messageState(inputChain: string, packet: LzPacket): Promise<ProofMessageState>;
  /**
   * EndpointV2.lazyInboundNonce of the packet's path on the input chain: every nonce up to it is delivered (or
   * skipped); one above it executes only when each nonce between is committed.
   */
  lazyInboundNonce(inputChain: string, packet: LzPacket): Promise<bigint>;
  /** Why the escrow skipped `orderHash` in the delivery `txHash` (its SettleSkipped there), or null if it did not. */
  settleSkip(inputChain: string, txHash: Hex, orderHash: Hex): Promise<SkipReason | null>;
  /** ReceiveUln302.commitVerification: moves a verified packet into the input chain's endpoint (permissionless). */
  commitCall(inputChain: string, packet: LzPacket): ContractCall;
  /** EndpointV2.lzReceive: delivers a committed packet to FerryApp, which settles the escrow (permissionless). */
  lzReceiveCall(inputChain: string, packet: LzPacket): ContractCall;
}

function layerZero(chain: Chain) {
  if (chain.settlement.method !== 'layerzero')
    throw registryError(`chain ${chain.name} does not settle via LayerZero`);
  return chain.settlement.layerzero;
}

export function createProofMessageChain({
  registry,
  rpcErrors,
}: {
  registry: ChainRegistry;
  rpcErrors?: RpcErrorCounter;
}): ProofMessageChain {
  const client = publicClientsFor(registry, 10_000, rpcErrors);
  /** The escrow of the order's input chain: the one the proof is for (it is part of the order's hash). */
  const inputEscrow = (order: OrderTerms) => {
    const input = registry.chains.find((c) => BigInt(c.chainId) === order.inputChainId);
    if (!input) throw registryError(`no registry chain has chain id ${order.inputChainId}`);
    return input.contracts.escrow;
  };

  return {
    async quoteProve(outputChain, orders, options) {
      return (await client(outputChain).readContract({
        address: registryChain(registry, outputChain).contracts.fill,
        abi: appAbi,
        functionName: 'quoteProve',
        args: [orders, inputEscrow(orders[0] as OrderTerms), options],
      })) as bigint;
    },

    proveCall(outputChain, orders, fee, options) {
      return {
        chain: outputChain,
        to: registryChain(registry, outputChain).contracts.fill,
        data: encodeFunctionData({
          abi: appAbi,
          functionName: 'prove',
          args: [orders, inputEscrow(orders[0] as OrderTerms), options],
        }),
        value: fee,
      };
    },

    async proofPacket(outputChain, txHash, guid) {
      const receipt = await client(outputChain).getTransactionReceipt({ hash: txHash });
      const endpoint = layerZero(registryChain(registry, outputChain)).endpoint.toLowerCase();
      const sent = parseEventLogs({
        abi: loadLzArtifact('EndpointV2').abi,
        eventName: 'PacketSent',
        logs: receipt.logs.filter((log) => log.address.toLowerCase() === endpoint),
      }) as unknown as { args: { encodedPayload: Hex } }[];
      for (const log of sent) {
        const packet = decodeLzPacket(log.args.encodedPayload);
        if (packet.guid.toLowerCase() === guid.toLowerCase()) return packet;
      }
      return null;
    },

    messageState(inputChain, packet) {
      return readMessageState(client(inputChain), layerZero(registryChain(registry, inputChain)), packet);
    },

    async lazyInboundNonce(inputChain, packet) {
      return (await client(inputChain).readContract({
        address: layerZero(registryChain(registry, inputChain)).endpoint,
        abi: loadLzArtifact('EndpointV2').abi,
        functionName: 'lazyInboundNonce',
        args: [packet.receiver, packet.srcEid, packet.sender],
      })) as bigint;
    },

    async settleSkip(inputChain, txHash, orderHash) {
      const receipt = await client(inputChain).getTransactionReceipt({ hash: txHash });
      return skipIn(receipt.logs, registryChain(registry, inputChain).contracts.escrow, orderHash);
    },

    commitCall(inputChain, packet) {
      return {
        chain: inputChain,
        to: layerZero(registryChain(registry, inputChain)).receiveLibrary,
        data: encodeFunctionData({
          abi: loadLzArtifact('ReceiveUln302').abi,
          functionName: 'commitVerification',
          args: [packet.header, packet.payloadHash],
        }),
      };
    },

    lzReceiveCall(inputChain, packet) {
      return {
        chain: inputChain,
        to: layerZero(registryChain(registry, inputChain)).endpoint,
        data: encodeFunctionData({
          abi: loadLzArtifact('EndpointV2').abi,
          functionName: 'lzReceive',
          args: [lzOrigin(packet), packet.receiver, packet.guid, packet.message, '0x'],
        }),
      };
    },
  };
}

/** The reason of the escrow's SettleSkipped for `orderHash` among a delivery's logs, or null. */
function skipIn(
  logs: readonly { address: string; data: Hex; topics: readonly Hex[] }[],
  escrowAddress: string,
  orderHash: Hex,
): SkipReason | null {
  const escrow = escrowAddress.toLowerCase();
  const skips = parseEventLogs({
    abi: escrowAbi,
    eventName: 'SettleSkipped',
    logs: logs.filter((log) => log.address.toLowerCase() === escrow) as never,
  }) as unknown as { args: { orderHash: Hex; reason: number } }[];
  const skip = skips.find((log) => log.args.orderHash.toLowerCase() === orderHash.toLowerCase());
  // A reason this version does not know is not one the worker acts on.
  return skip ? (SKIP_REASONS[Number(skip.args.reason)] ?? null) : null;
}

async function readMessageState(
  c: ReturnType<ReturnType<typeof publicClientsFor>>,
  lz: ReturnType<typeof layerZero>,
  packet: LzPacket,
): Promise<ProofMessageState> {
  const endpointAbi = loadLzArtifact('EndpointV2').abi;
  const path = [packet.receiver, packet.srcEid, packet.sender] as const;
  const [stored, lazyNonce] = await Promise.all([
    c.readContract({
      address: lz.endpoint,
      abi: endpointAbi,
      functionName: 'inboundPayloadHash',
      args: [...path, packet.nonce],
    }) as Promise<Hex>,
    c.readContract({
      address: lz.endpoint,
      abi: endpointAbi,
      functionName: 'lazyInboundNonce',
      args: path,
    }) as Promise<bigint>,
  ]);
  if (stored.toLowerCase() === packet.payloadHash.toLowerCase()) return 'committed';
  // Clearing a payload moves the lazy nonce to it (and needs every nonce below verified), so an empty slot at or
  // below the lazy nonce was executed.
  if (BigInt(stored) === 0n && packet.nonce <= lazyNonce) return 'delivered';
  const receiveAbi = loadLzArtifact('ReceiveUln302').abi;
  const config = await c.readContract({
    address: lz.receiveLibrary,
    abi: receiveAbi,
    functionName: 'getUlnConfig',
    args: [packet.receiver, packet.srcEid],
  });
  const verifiable = await c.readContract({
    address: lz.receiveLibrary,
    abi: receiveAbi,
    functionName: 'verifiable',
    args: [config, keccak256(packet.header), packet.payloadHash],
  });
  return verifiable === true ? 'verified' : 'pending';
}
