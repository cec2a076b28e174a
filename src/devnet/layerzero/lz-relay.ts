import type { Hex } from 'viem';
import { ChainError } from '../../chains/chain-error.ts';
import type { ChainLogger } from '../../chains/chain-logger.ts';
import { loadLzArtifact } from '../../chains/layerzero/lz-artifacts.ts';
import {
  DEFAULT_LZ_RPC_TIMEOUT_MS,
  type LzChainClient,
  lzChainClient,
} from '../../chains/layerzero/lz-chain-client.ts';
import type { LzChainDeployment } from '../../chains/layerzero/lz-chain-deployment.ts';
import { decodeLzPacket, type LzPacket, lzReceiveGasOf } from '../../chains/layerzero/lz-packet.ts';
import {
  commitLzVerification,
  dvnVerify,
  executeLzReceive,
  hasDvnVerified,
  lzInboundState,
} from './lz-delivery.ts';
import { deliverPipelined, type PendingDvn } from './lz-pipelined-delivery.ts';

export interface LzRelayChain {
  rpcUrl: string;
  deployment: LzChainDeployment;
  /** First block to scan for PacketSent. Default: the deployment's first block. */
  fromBlock?: bigint;
  /**
   * Blocks a packet sent on this chain waits before DVNs verify it (its own block counts as one): the
   * confirmations receiving apps require from this chain. Default: the relay's `confirmations`.
   */
  confirmations?: bigint;
}

export interface LzRelayOptions {
  chains: readonly LzRelayChain[];
  /** Key i signs for DVN i (`deployment.dvns[i]`) on every chain. */
  dvnKeys: readonly Hex[];
  /** Pays for commitVerification and lzReceive on every chain. */
  executorKey: Hex;
  /** Blocks a packet waits on its source chain before DVNs verify it, for chains that do not set their own. */
  confirmations: bigint;
  /**
   * Which DVNs (indices into dvnKeys) verify. Default: all. Tests run a relay with fewer than the required DVNs
   * to show such a packet stays unexecutable.
   */
  verifyingDvns?: readonly number[];
  pollIntervalMs?: number;
  rpcTimeoutMs?: number;
  /**
   * A delivery refused on chain or cut off by an RPC failure is tried again after this long, doubling per failed
   * attempt up to `retryMaxMs` (defaults 500 ms and 10 s): a message whose lzReceive reverted (the escrow's token
   * paused) is executed once the token works again.
   */
  retryBaseMs?: number;
  retryMaxMs?: number;
  onDelivered?: (delivery: LzDelivery) => void;
  /** A delivery attempt that failed; the packet is tried again later (see `retryBaseMs`). */
  onError?: (error: ChainError, packet: LzPacket) => void;
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
  /**
   * Whether the attempt that delivered it sent every step before waiting for any (deliverPipelined: one block on a
   * chain with blocks) rather than one step after the other.
   */
  pipelined: boolean;
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
  confirmations: bigint;
}

/** A packet seen on its source chain and not yet delivered: tried on every poll once `nextAttemptAt` passed. */
interface PendingPacket {
  packet: LzPacket;
  destination: RelayChainState;
  /** The source chain's confirmations, which the DVNs attest. */
  confirmations: bigint;
  /** The lzReceive gas the packet's executor options ask for; null when they name none. */
  optionGas: bigint | null;
  seenAt: number;
  attempts: number;
  nextAttemptAt: number;
}

/**
 * Has each verifying DVN that has not yet done so verify `packet` on `destination`, then (all of them verifying)
 * commits and executes it; each step already done on chain (by an earlier attempt, or by anyone else: all three
 * are permissionless) is skipped. A packet's first attempt sends every step before waiting for any, so on a chain
 * with blocks they land in one block; later attempts go step by step, simulating each, so a refusal is reported
 * with its reason. Answers null when the packet needs nothing more.
 */
async function deliver(
  options: LzRelayOptions,
  verifying: readonly number[],
  pending: PendingPacket,
): Promise<LzDelivery | null> {
  const { packet, destination, seenAt, confirmations } = pending;
  const target = destination.chain.deployment;
  const state = await lzInboundState(destination.executor, target, packet);
  if (state === 'delivered' || state === 'burnt') return null;
  const elapsed = () => Date.now() - seenAt;
  const all = verifying.length >= target.dvns.length;
  if (state === 'open' && all && pending.attempts === 0 && pending.optionGas !== null) {
    const dvns = await dvnsStillToVerify(options, verifying, pending);
    const delivered = await deliverPipelined({
      destination: target,
      packet,
      dvns,
      executor: destination.executor,
      confirmations,
      optionGas: pending.optionGas,
    });
    return { packet, stage: 'executed', pipelined: true, ...delivered, elapsedMs: elapsed() };
  }
  const dvnGas: bigint[] = [];
  if (state === 'open') {
    const dvns = await dvnsStillToVerify(options, verifying, pending);
    // The DVNs are independent parties with their own keys: they verify side by side, so on a chain with blocks
    // both verifications land in one block rather than two in a row.
    const verified = await Promise.allSettled(
      dvns.map(({ client, key, dvn }) => dvnVerify(client, key, dvn, target, packet, confirmations)),
    );
    const failed: unknown[] = [];
    for (const outcome of verified) {
      if (outcome.status === 'rejected') failed.push(outcome.reason);
      else dvnGas.push(outcome.value);
    }
    if (failed.length === 1) throw failed[0];
    if (failed.length > 1) {
      const reasons = failed.map((reason) => (reason instanceof Error ? reason.message : String(reason)));
      throw new ChainError(`${failed.length} DVNs failed to verify: ${reasons.join('; ')}`, {
        cause: failed[0],
      });
    }
    if (!all) return { packet, stage: 'verified', pipelined: false, dvnGas, elapsedMs: elapsed() };
  }
  const commitGas =
    state === 'open' ? await commitLzVerification(destination.executor, target, packet) : undefined;
  const received = await executeLzReceive(destination.executor, target, packet);
  return {
    packet,
    stage: 'executed',
    pipelined: false,
    dvnGas,
    ...(commitGas === undefined ? {} : { commitGas }),
    receiveGas: received.gasUsed,
    receiveTx: received.transactionHash,
    elapsedMs: elapsed(),
  };
}

/** The verifying DVNs that have not yet verified the packet (with the source chain's confirmations). */
async function dvnsStillToVerify(
  options: LzRelayOptions,
  verifying: readonly number[],
  { packet, destination, confirmations }: PendingPacket,
): Promise<PendingDvn[]> {
  const target = destination.chain.deployment;
  const dvns = verifying.map((index) => {
    const dvn = target.dvns[index];
    const key = options.dvnKeys[index];
    const client = destination.dvnClients[index];
    if (!dvn || !key || !client) throw new ChainError(`no DVN ${index} on chain ${target.chainId}`);
    return { dvn, key, client };
  });
  const done = await Promise.all(
    dvns.map(({ client, dvn }) => hasDvnVerified(client, target, packet, dvn.address, confirmations)),
  );
  return dvns.filter((_, i) => !done[i]);
}

interface RetryContext {
  options: LzRelayOptions;
  verifying: readonly number[];
  pending: Map<Hex, PendingPacket>;
  baseMs: number;
  maxMs: number;
}

/** One delivery attempt; a failure schedules the next one, twice as far off each time (up to `maxMs`). */
async function attempt(ctx: RetryContext, entry: PendingPacket): Promise<void> {
  const { options, pending } = ctx;
  const log = options.log;
  const { packet } = entry;
  const where = { guid: packet.guid, srcEid: packet.srcEid, dstEid: packet.dstEid, nonce: packet.nonce };
  try {
    const delivery = await deliver(options, ctx.verifying, entry);
    pending.delete(packet.guid);
    if (!delivery) {
      log?.info(where, 'LayerZero packet needs no relaying (delivered already)');
      return;
    }
    log?.info(
      { ...where, stage: delivery.stage, attempts: entry.attempts + 1, pipelined: delivery.pipelined },
      'LayerZero packet relayed',
    );
    options.onDelivered?.(delivery);
  } catch (err) {
    const error =
      err instanceof ChainError
        ? err
        : new ChainError(`relaying packet ${packet.guid} failed`, { cause: err });
    entry.attempts += 1;
    const retryInMs = Math.min(ctx.baseMs * 2 ** (entry.attempts - 1), ctx.maxMs);
    entry.nextAttemptAt = Date.now() + retryInMs;
    log?.warn?.(
      { ...where, attempts: entry.attempts, retryInMs, err: error.message },
      'LayerZero packet not relayed; will retry',
    );
    options.onError?.(error, packet);
  }
}

/**
 * The devnet's off-chain LayerZero workers in one loop: watches PacketSent on every endpoint and, per packet,
 * has each DVN verify it on the destination, commits the verification and executes lzReceive, as LayerZero's
 * DVNs and executor do, all four transactions sent before any is mined (one block; see deliver). It runs apart
 * from Ferry's API and worker, with its own keys. A failed delivery is tried again, step by step, with backoff; a
 * packet someone else delivered meanwhile is dropped, so a restarted relay that rescans from the first block only
 * finishes what is left.
 */
export function startLzRelay(options: LzRelayOptions): LzRelay {
  const timeoutMs = options.rpcTimeoutMs ?? DEFAULT_LZ_RPC_TIMEOUT_MS;
  const verifying = options.verifyingDvns ?? options.dvnKeys.map((_, index) => index);
  /** By guid, in the order seen: executing in order keeps each path's nonces in order where it can. */
  const pending = new Map<Hex, PendingPacket>();
  const retry: RetryContext = {
    options,
    verifying,
    pending,
    baseMs: options.retryBaseMs ?? 500,
    maxMs: options.retryMaxMs ?? 10_000,
  };
  const log = options.log;
  const states: RelayChainState[] = options.chains.map((chain) => {
    const { chainId } = chain.deployment;
    return {
      chain,
      dvnClients: options.dvnKeys.map((key) => lzChainClient(chain.rpcUrl, chainId, key, timeoutMs)),
      executor: lzChainClient(chain.rpcUrl, chainId, options.executorKey, timeoutMs),
      nextBlock: chain.fromBlock ?? chain.deployment.startBlock,
      confirmations: chain.confirmations ?? options.confirmations,
    };
  });
  const byEid = new Map(states.map((state) => [state.chain.deployment.eid, state]));

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function scanChain(state: RelayChainState): Promise<void> {
    const head = await state.executor.publicClient.getBlockNumber();
    // A packet in block b has head - b + 1 confirmations; scan only blocks that already have enough.
    const toBlock = head - state.confirmations + 1n;
    if (toBlock < state.nextBlock) return;
    const logs = await state.executor.publicClient.getContractEvents({
      address: state.chain.deployment.endpoint,
      abi: loadLzArtifact('EndpointV2').abi,
      eventName: 'PacketSent',
      fromBlock: state.nextBlock,
      toBlock,
    });
    for (const event of logs) {
      const { encodedPayload, options: sendOptions } = event.args as { encodedPayload: Hex; options: Hex };
      let packet: LzPacket;
      try {
        packet = decodeLzPacket(encodedPayload);
      } catch (err) {
        // Skipped, not retried: the same bytes would fail on every attempt.
        log?.warn?.({ tx: event.transactionHash, err }, 'LayerZero packet not decodable');
        continue;
      }
      const destination = byEid.get(packet.dstEid);
      if (!destination) {
        log?.warn?.({ guid: packet.guid, dstEid: packet.dstEid }, 'LayerZero packet for an unknown eid');
        continue;
      }
      if (!pending.has(packet.guid)) {
        pending.set(packet.guid, {
          packet,
          destination,
          confirmations: state.confirmations,
          optionGas: lzReceiveGasOf(sendOptions),
          seenAt: Date.now(),
          attempts: 0,
          nextAttemptAt: 0,
        });
      }
    }
    state.nextBlock = toBlock + 1n;
  }

  async function pollAll(): Promise<void> {
    for (const state of states) {
      if (stopped) return;
      try {
        await scanChain(state);
      } catch (err) {
        // The cursor did not move: the same blocks are scanned again on the next poll.
        log?.warn?.({ chainId: state.chain.deployment.chainId, err }, 'LayerZero relay poll failed');
      }
    }
    for (const entry of [...pending.values()]) {
      if (stopped) return;
      if (entry.nextAttemptAt <= Date.now()) await attempt(retry, entry);
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
