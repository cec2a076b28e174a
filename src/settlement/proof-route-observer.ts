import { type ChainRegistry, registryChain } from '../chains/chain-registry.ts';
import type { LzPacket } from '../chains/layerzero/lz-packet.ts';
import type { SettlementChain } from '../chains/settlement/settlement-chain.ts';
import type { Clock } from '../domain/clock.ts';
import type { EscrowStatus } from '../domain/escrow-status.ts';
import type { Order } from '../domain/records.ts';
import type {
  ProofGap,
  ProofObservation,
  ProofState,
  SettlementRoute,
} from '../domain/settlement-observation.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { findProofMessage, undeliveredProofMessages } from '../store/tables/log-scan-store.ts';

/**
 * How many undelivered messages below the order's one are read per look: the executor normally delivers a path's
 * messages within seconds, so only a long outage leaves more, and the worker then commits the newest it reads.
 */
const GAP_SCAN_LIMIT = 128;

interface RouteDeps {
  readonly registry: ChainRegistry;
  readonly chain: SettlementChain;
  readonly database: FerryDatabase;
  readonly clock: Clock;
}

/**
 * The input chain's settlement method and, on LayerZero, the newest proof message of the order from the index,
 * with where it stands on the input chain (read only while it matters: escrow active). A verified or committed
 * message also shows the older message on its path the endpoint still needs committed; a delivered one whether
 * the escrow skipped the order in it. `proves`: Ferry's proves of the order written down.
 */
export async function observeRoute(
  deps: RouteDeps,
  order: Order,
  escrow: EscrowStatus,
  proves: number,
): Promise<SettlementRoute> {
  const { chain } = deps;
  const input = registryChain(deps.registry, order.inputChain);
  if (input.settlement.method !== 'layerzero') return { method: 'attester' };
  const output = registryChain(deps.registry, order.outputChain);
  const found = await findProofMessage(
    deps.database.db,
    order.outputChain,
    order.inputChain,
    order.blockchainOrderId,
  );
  let proof: ProofObservation | null = null;
  if (found) {
    const delivered = found.delivered && { txHash: found.delivered.txHash, at: BigInt(found.delivered.at) };
    let state: ProofState = delivered ? 'delivered' : 'pending';
    let gap: ProofGap | null = null;
    let skipped: ProofObservation['skipped'] = null;
    if (delivered && escrow === 'active') {
      skipped = await chain.settleSkip(order.inputChain, delivered.txHash, order.blockchainOrderId);
    } else if (escrow === 'active') {
      const packet = await chain.proofPacket(order.outputChain, found.txHash, found.guid);
      if (packet) state = await chain.messageState(order.inputChain, packet);
      if (packet && (state === 'verified' || state === 'committed')) {
        const route = { outputChain: order.outputChain, inputChain: order.inputChain };
        gap = await findGap(
          deps,
          { ...route, dstEid: input.settlement.layerzero.eid },
          packet,
          found.blockNumber,
        );
      }
    }
    const sentAt = BigInt(found.sentAt);
    proof = { guid: found.guid, txHash: found.txHash, sentAt, state, delivered, gap, skipped };
  }
  return {
    method: 'layerzero',
    proof,
    proveAfter: BigInt(output.proveAfterSeconds),
    executeAfter: BigInt(input.executeAfterSeconds),
    now: BigInt(Math.floor(deps.clock.now().getTime() / 1000)),
    proves,
  };
}

/**
 * The older message on `packet`'s path the endpoint still needs committed before it executes `packet`: every nonce
 * above the lazy inbound nonce and below the packet's. The lowest verified one (anyone may commit it) comes first;
 * otherwise the lowest still waiting for its DVNs, or missing from the index. Null when nothing is missing.
 */
async function findGap(
  deps: RouteDeps,
  route: { outputChain: string; inputChain: string; dstEid: number },
  packet: LzPacket,
  throughBlock: number,
): Promise<ProofGap | null> {
  const { chain } = deps;
  const lazy = await chain.lazyInboundNonce(route.inputChain, packet);
  if (packet.nonce <= lazy + 1n) return null;
  const candidates = await undeliveredProofMessages(deps.database.db, route, throughBlock, GAP_SCAN_LIMIT);
  const seen = new Set<bigint>();
  let verified: ProofGap | null = null;
  let waiting: ProofGap | null = null;
  for (const candidate of candidates) {
    if (candidate.guid.toLowerCase() === packet.guid.toLowerCase()) continue;
    const older = await chain.proofPacket(route.outputChain, candidate.txHash, candidate.guid);
    if (!older || older.nonce >= packet.nonce) continue;
    // Newest first: the rest of the path lies at or below the lazy nonce, delivered already.
    if (older.nonce <= lazy) break;
    seen.add(older.nonce);
    const state = await chain.messageState(route.inputChain, older);
    if (state !== 'verified' && state !== 'pending') continue;
    const gap: ProofGap = { nonce: older.nonce, state, guid: older.guid, txHash: candidate.txHash };
    if (state === 'verified') verified = gap;
    else waiting = gap;
  }
  if (verified) return verified;
  for (let nonce = lazy + 1n; nonce < packet.nonce; nonce++) {
    if (!seen.has(nonce)) return waiting && waiting.nonce < nonce ? waiting : unknownGap(nonce);
  }
  return waiting;
}

function unknownGap(nonce: bigint): ProofGap {
  return { nonce, state: 'unknown', guid: null, txHash: null };
}
