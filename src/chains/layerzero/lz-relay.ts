import type { Hex } from 'viem';
import type { ChainLogger } from '../chain-logger.ts';
import { loadLzArtifact } from './lz-artifacts.ts';
import {
  DEFAULT_LZ_RPC_TIMEOUT_MS,
  LayerZeroDevnetError,
  type LzChainClient,
  lzChainClient,
} from './lz-chain-client.ts';
import { commitLzVerification, dvnVerify, executeLzReceive } from './lz-delivery.ts';
import type { LzChainDeployment } from './lz-deploy.ts';
import { decodeLzPacket, type LzPacket } from './lz-packet.ts';

export interface LzRelayChain {
  rpcUrl: string;
  deployment: LzChainDeployment;
  /** First block to scan for PacketSent. Default: the deployment's first block. */
  fromBlock?: bigint;
}

export interface LzRelayOptions {
  chains: readonly LzRelayChain[];
  /** Key i signs for DVN i (`deployment.dvns[i]`) on every chain. */
  dvnKeys: readonly Hex[];
  /** Pays for commitVerification and lzReceive on every chain. */
  executorKey: Hex;
  /** Blocks a packet waits on its source chain before DVNs verify it (its own block counts as one). */
  confirmations: bigint;
  /**
   * Which DVNs (indices into dvnKeys) verify. Default: all. Tests run a relay with fewer than the required DVNs
   * to show such a packet stays unexecutable.
   */
  verifyingDvns?: readonly number[];
  pollIntervalMs?: number;
  rpcTimeoutMs?: number;
  onDelivered?: (delivery: LzDelivery) => void;
  /** A packet the relay gave up on (it is not retried): refused on chain, or an RPC failure mid-delivery. */
  onError?: (error: LayerZeroDevnetError, packet: LzPacket) => void;
  log?: ChainLogger;
}

export interface LzDelivery {
  packet: LzPacket;
  /** Where it stopped: `executed` normally, `verified` when the relay's DVNs are fewer than the quorum. */
  stage: 'verified' | 'executed';
  dvnGas: bigint[];
  commitGas?: bigint;
  receiveGas?: bigint;
  receiveTx?: Hex;
  /** From the relay seeing PacketSent to lzReceive mined (or the last DVN's verification). */
  elapsedMs: number;
}

export interface LzRelay {
  /** Stops polling and waits for the delivery in progress (bounded by the RPC deadlines). Safe to call twice. */
  stop(): Promise<void>;
}

interface RelayChainState {
  chain: LzRelayChain;
  dvnClients: LzChainClient[];
  executor: LzChainClient;
  nextBlock: bigint;
}

/** Has each verifying DVN verify `packet` on `destination`, then (all of them verifying) commits and executes it. */
async function deliver(
  options: LzRelayOptions,
  verifying: readonly number[],
  packet: LzPacket,
  destination: RelayChainState,
  seenAt: number,
): Promise<LzDelivery> {
  const target = destination.chain.deployment;
  const dvnGas: bigint[] = [];
  for (const index of verifying) {
    const dvn = target.dvns[index];
    const key = options.dvnKeys[index];
    const client = destination.dvnClients[index];
    if (!dvn || !key || !client) throw new LayerZeroDevnetError(`no DVN ${index} on chain ${target.chainId}`);
    dvnGas.push(await dvnVerify(client, key, dvn, target, packet, options.confirmations));
  }
  if (verifying.length < target.dvns.length) {
    return { packet, stage: 'verified', dvnGas, elapsedMs: Date.now() - seenAt };
  }
  const commitGas = await commitLzVerification(destination.executor, target, packet);
  const received = await executeLzReceive(destination.executor, target, packet);
  return {
    packet,
    stage: 'executed',
    dvnGas,
    commitGas,
    receiveGas: received.gasUsed,
    receiveTx: received.transactionHash,
    elapsedMs: Date.now() - seenAt,
  };
}

/**
 * The devnet's off-chain LayerZero workers in one loop: watches PacketSent on every endpoint and, per packet,
 * has each DVN verify it on the destination, commits the verification and executes lzReceive, as LayerZero's
 * DVNs and executor do. It runs apart from Ferry's API and worker, with its own keys.
 */
export function startLzRelay(options: LzRelayOptions): LzRelay {
  const timeoutMs = options.rpcTimeoutMs ?? DEFAULT_LZ_RPC_TIMEOUT_MS;
  const verifying = options.verifyingDvns ?? options.dvnKeys.map((_, index) => index);
  const states: RelayChainState[] = options.chains.map((chain) => {
    const { chainId } = chain.deployment;
    return {
      chain,
      dvnClients: options.dvnKeys.map((key) => lzChainClient(chain.rpcUrl, chainId, key, timeoutMs)),
      executor: lzChainClient(chain.rpcUrl, chainId, options.executorKey, timeoutMs),
      nextBlock: chain.fromBlock ?? chain.deployment.startBlock,
    };
  });
  const byEid = new Map(states.map((state) => [state.chain.deployment.eid, state]));

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function pollChain(state: RelayChainState): Promise<void> {
    const head = await state.executor.publicClient.getBlockNumber();
    // A packet in block b has head - b + 1 confirmations; scan only blocks that already have enough.
    const toBlock = head - options.confirmations + 1n;
    if (toBlock < state.nextBlock) return;
    const logs = await state.executor.publicClient.getContractEvents({
      address: state.chain.deployment.endpoint,
      abi: loadLzArtifact('EndpointV2').abi,
      eventName: 'PacketSent',
      fromBlock: state.nextBlock,
      toBlock,
    });
    for (const log of logs) {
      if (stopped) return;
      const seenAt = Date.now();
      const { encodedPayload } = log.args as { encodedPayload: Hex };
      let packet: LzPacket;
      try {
        packet = decodeLzPacket(encodedPayload);
      } catch (err) {
        // Skipped, not retried: rescanning would meet the same bytes on every poll.
        options.log?.warn?.({ tx: log.transactionHash, err }, 'LayerZero packet not decodable');
        continue;
      }
      const destination = byEid.get(packet.dstEid);
      try {
        if (!destination)
          throw new LayerZeroDevnetError(`packet ${packet.guid} is for unknown eid ${packet.dstEid}`);
        const delivery = await deliver(options, verifying, packet, destination, seenAt);
        options.log?.info(
          {
            guid: packet.guid,
            srcEid: packet.srcEid,
            dstEid: packet.dstEid,
            nonce: packet.nonce,
            stage: delivery.stage,
          },
          'LayerZero packet relayed',
        );
        options.onDelivered?.(delivery);
      } catch (err) {
        const error =
          err instanceof LayerZeroDevnetError
            ? err
            : new LayerZeroDevnetError(`relaying packet ${packet.guid} failed`, { cause: err });
        options.log?.warn?.({ guid: packet.guid, err: error }, 'LayerZero packet not relayed');
        options.onError?.(error, packet);
      }
    }
    state.nextBlock = toBlock + 1n;
  }

  async function pollAll(): Promise<void> {
    for (const state of states) {
      if (stopped) return;
      try {
        await pollChain(state);
      } catch (err) {
        // The cursor did not move: the same blocks are scanned again on the next poll.
        options.log?.warn?.({ chainId: state.chain.deployment.chainId, err }, 'LayerZero relay poll failed');
      }
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pollAll().finally(schedule);
    }, options.pollIntervalMs ?? 100);
  };
  schedule();

  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        stopped = true;
        clearTimeout(timer);
        await running;
      })();
      return stopping;
    },
  };
}
