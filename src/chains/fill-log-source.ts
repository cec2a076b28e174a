import { type Hex, parseEventLogs } from 'viem';
import type { Address } from '../domain/address.ts';
import type { ChainFill, ProofDeliveredLog, ProofSentLog } from '../domain/chain-fill.ts';
import type { ChainRegistry } from './chain-registry.ts';
import { loadArtifact } from './contract-artifacts.ts';
import { isLogRangeTooLarge, LogRangeTooLargeError } from './log-range-error.ts';
import { publicClientsFor, type RpcErrorCounter } from './viem-client.ts';

const appAbi = loadArtifact('FerryApp').abi;
/** FerryApp is FerryFill with LayerZero on top: one scan of the fill contract reads fills and proof messages. */
const SCANNED_EVENTS = ['Filled', 'ProofSent', 'ProofDelivered'] as const;
const scannedEvents = appAbi.filter(
  (x) => x.type === 'event' && (SCANNED_EVENTS as readonly string[]).includes(x.name),
);

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
      const fill = registry.chain(chain)?.contracts.fill;
      if (!fill) throw new Error(`chain ${chain} is not in the registry`);
      const [logs, first, last] = await Promise.all([
        c
          .getLogs({ address: fill, events: scannedEvents as never, fromBlock, toBlock })
          .catch((error: unknown) => {
            if (isLogRangeTooLarge(error))
              throw new LogRangeTooLargeError(chain, fromBlock, toBlock, { cause: error });
            throw error;
          }),
        c.getBlock({ blockNumber: fromBlock }),
        fromBlock === toBlock ? null : c.getBlock({ blockNumber: toBlock }),
      ]);
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
      };
    },
  };
}
