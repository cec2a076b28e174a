import { decodeAbiParameters, getAddress, type Hex, parseEventLogs } from 'viem';
import type { Address } from '../../domain/address.ts';
import type { ChainFill, ProofDeliveredLog, ProofSentLog } from '../../domain/chain-fill.ts';
import type { OnchainOpen } from '../../domain/onchain-order.ts';
import type { OrderTerms } from '../../domain/order-typed-data.ts';
import type { ChainRegistry } from '../chain-registry.ts';
import { registryError } from '../chain-registry.ts';
import { loadArtifact } from '../contract-artifacts.ts';
import { isLogRangeTooLarge, LogRangeTooLargeError } from '../log-range-error.ts';
import { publicClientsFor, type RpcErrorCounter } from '../viem-client.ts';

const appAbi = loadArtifact('FerryApp').abi;
/**
 * FerryApp is FerryFill with LayerZero on top: one scan of the fill contract reads fills and proof messages (and,
 * in the same request, the escrow's Open events).
 */
const SCANNED_EVENTS = ['Filled', 'ProofSent', 'ProofDelivered'] as const;
const scannedEvents = appAbi.filter(
  (x) => x.type === 'event' && (SCANNED_EVENTS as readonly string[]).includes(x.name),
);

const escrowAbi = loadArtifact('FerryEscrow').abi;
const openEvent = escrowAbi.filter((x) => x.type === 'event' && x.name === 'Open');
/** The escrow's `Order` struct, as `originData` (abi.encode(order, escrow)) carries it. */
const orderParam = (
  escrowAbi.find((x) => x.type === 'function' && x.name === 'hashOrder') as { inputs: readonly unknown[] }
).inputs[0];
const originDataParams = [orderParam, { type: 'address', name: 'escrow' }] as never;

interface OpenLog {
  transactionHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  address: Address;
  args: { orderId: Hex; resolvedOrder: { fillInstructions: readonly { originData: Hex }[] } };
}

interface ScannedLog {
  transactionHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
  eventName: (typeof SCANNED_EVENTS)[number];
  args: Record<string, unknown>;
}

export interface FillRange {
  readonly fills: readonly ChainFill[];
  /** FerryApp's proof messages sent from this chain, and those delivered to it (none on a FerryFill). */
  readonly proofsSent: readonly ProofSentLog[];
  readonly proofsDelivered: readonly ProofDeliveredLog[];
  /**
   * The escrow's `Open` events: every deposit emits one (Ferry's own too), so the indexer keeps only those of orders
   * it has no row of, the orders wallets opened on chain.
   */
  readonly opens: readonly OnchainOpen[];
  /** The parent hash of the range's first block: equal to the hash read last time unless the chain reorged. */
  readonly fromParentHash: Hex;
  /** The hash of the range's last block, kept with the cursor. */
  readonly toHash: Hex;
}

/**
 * The RPC reads of a fill-contract log scan: the head, and the Filled (and, on FerryApp, ProofSent and
 * ProofDelivered) events of one bounded block range.
 */
export interface FillLogSource {
  head(chain: string): Promise<bigint>;
  /** Throws LogRangeTooLargeError when the RPC refuses the span; any other failure as is. */
  fills(chain: string, fromBlock: bigint, toBlock: bigint): Promise<FillRange>;
}

export function createFillLogSource({
  registry,
  rpcErrors,
}: {
  registry: ChainRegistry;
  rpcErrors?: RpcErrorCounter;
}): FillLogSource {
  const client = publicClientsFor(registry, 10_000, rpcErrors);

  return {
    head: (chain: string): Promise<bigint> => client(chain).getBlockNumber({ cacheTime: 0 }),

    async fills(chain: string, fromBlock: bigint, toBlock: bigint): Promise<FillRange> {
      const c = client(chain);
      const contracts = registry.chain(chain)?.contracts;
      if (!contracts) throw registryError(`chain ${chain} is not in the registry`);
      // One request for both contracts: the fill contract's events and the escrow's Open.
      const [all, first, last] = await Promise.all([
        c
          .getLogs({
            address: [contracts.fill, contracts.escrow],
            events: [...scannedEvents, ...openEvent] as never,
            fromBlock,
            toBlock,
          })
          .catch((error: unknown) => {
            if (isLogRangeTooLarge(error))
              throw new LogRangeTooLargeError(chain, fromBlock, toBlock, { cause: error });
            throw error;
          }),
        c.getBlock({ blockNumber: fromBlock }),
        fromBlock === toBlock ? null : c.getBlock({ blockNumber: toBlock }),
      ]);
      const from = (address: Address) =>
        (all as { address: string }[]).filter(
          (l) => l.address.toLowerCase() === address.toLowerCase(),
        ) as never[];
      const logs = from(contracts.fill);
      const openLogs = from(contracts.escrow);
      const parsed = parseEventLogs({ abi: appAbi, logs }) as unknown as ScannedLog[];
      const times = new Map<bigint, number>([[fromBlock, Number(first.timestamp)]]);
      if (last) times.set(toBlock, Number(last.timestamp));
      for (const log of parsed) {
        if (!times.has(log.blockNumber)) {
          const block = await c.getBlock({ blockNumber: log.blockNumber });
          times.set(log.blockNumber, Number(block.timestamp));
        }
      }
      const at = (log: ScannedLog) => ({
        chain,
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        blockTimestamp: times.get(log.blockNumber) as number,
      });
      const of = (name: ScannedLog['eventName']) => parsed.filter((log) => log.eventName === name);
      return {
        fromParentHash: first.parentHash,
        toHash: (last ?? first).hash,
        fills: of('Filled').map((log) => ({
          ...at(log),
          orderHash: log.args.orderHash as Hex,
          filler: log.args.filler as Address,
          recipient: log.args.recipient as Address,
          token: log.args.outputToken as Address,
          amount: log.args.outputAmount as bigint,
          blockHash: log.blockHash,
        })),
        proofsSent: of('ProofSent').map((log) => ({
          ...at(log),
          guid: log.args.guid as Hex,
          dstEid: Number(log.args.dstEid),
          orderHashes: log.args.orderHashes as Hex[],
        })),
        proofsDelivered: of('ProofDelivered').map((log) => ({
          ...at(log),
          guid: log.args.guid as Hex,
          srcEid: Number(log.args.srcEid),
        })),
        opens: (parseEventLogs({ abi: openEvent, logs: openLogs }) as unknown as OpenLog[]).flatMap((log) => {
          const terms = originTerms(log);
          if (!terms) return [];
          return [
            {
              chain,
              escrow: getAddress(log.address),
              orderHash: log.args.orderId,
              terms,
              txHash: log.transactionHash,
              blockNumber: log.blockNumber,
              logIndex: log.logIndex,
            },
          ];
        }),
      };
    },
  };
}

/** The order an `Open` event's one fill instruction carries (null when it carries none Ferry wrote). */
function originTerms(log: OpenLog): OrderTerms | null {
  const originData = log.args.resolvedOrder.fillInstructions[0]?.originData;
  if (!originData) return null;
  try {
    const [order, escrow] = decodeAbiParameters(originDataParams, originData) as unknown as [
      OrderTerms,
      Address,
    ];
    return escrow.toLowerCase() === log.address.toLowerCase() ? order : null;
  } catch {
    return null;
  }
}
