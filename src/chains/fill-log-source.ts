import { type Hex, parseEventLogs } from 'viem';
import type { Address } from '../domain/address.ts';
import type { ChainFill } from '../domain/chain-fill.ts';
import type { ChainRegistry } from './chain-registry.ts';
import { loadArtifact } from './contract-artifacts.ts';
import { isLogRangeTooLarge, LogRangeTooLargeError } from './log-range-error.ts';
import { publicClientsFor, type RpcErrorCounter } from './viem-client.ts';

const fillAbi = loadArtifact('FerryFill').abi;
const filledEvent = fillAbi.find((x) => x.type === 'event' && x.name === 'Filled');

export interface FillRange {
  readonly fills: readonly ChainFill[];
  /** The parent hash of the range's first block: equal to the hash read last time unless the chain reorged. */
  readonly fromParentHash: Hex;
  /** The hash of the range's last block, kept with the cursor. */
  readonly toHash: Hex;
}

/** The RPC reads of a fill-contract log scan: the head, and the Filled events of one bounded block range. */
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
          .getLogs({ address: fill, event: filledEvent as never, fromBlock, toBlock })
          .catch((error: unknown) => {
            if (isLogRangeTooLarge(error))
              throw new LogRangeTooLargeError(chain, fromBlock, toBlock, { cause: error });
            throw error;
          }),
        c.getBlock({ blockNumber: fromBlock }),
        fromBlock === toBlock ? null : c.getBlock({ blockNumber: toBlock }),
      ]);
      const parsed = parseEventLogs({ abi: fillAbi, logs, eventName: 'Filled' }) as unknown as Array<{
        transactionHash: Hex;
        logIndex: number;
        blockNumber: bigint;
        blockHash: Hex;
        args: {
          orderHash: Hex;
          filler: Address;
          recipient: Address;
          outputToken: Address;
          outputAmount: bigint;
        };
      }>;
      const times = new Map<bigint, number>([[fromBlock, Number(first.timestamp)]]);
      if (last) times.set(toBlock, Number(last.timestamp));
      for (const log of parsed) {
        if (!times.has(log.blockNumber)) {
          const block = await c.getBlock({ blockNumber: log.blockNumber });
          times.set(log.blockNumber, Number(block.timestamp));
        }
      }
      return {
        fromParentHash: first.parentHash,
        toHash: (last ?? first).hash,
        fills: parsed.map((log) => ({
          chain,
          txHash: log.transactionHash,
          logIndex: log.logIndex,
          orderHash: log.args.orderHash,
          filler: log.args.filler,
          recipient: log.args.recipient,
          token: log.args.outputToken,
          amount: log.args.outputAmount,
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          blockTimestamp: times.get(log.blockNumber) as number,
        })),
      };
    },
  };
}
