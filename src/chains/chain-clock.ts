import { type Clock, unixSeconds } from '../domain/clock.ts';
import type { ChainRegistry } from './chain-registry.ts';
import { publicClientsFor, type RpcErrorCounter } from './viem-client.ts';

/** The pino-compatible subset the clock logs through. */
interface ClockLog {
  warn(obj: object, msg: string): void;
}

/**
 * Each chain's idea of "now", for deadlines the contracts compare with `block.timestamp`. A chain whose clock
 * runs ahead of the server would otherwise get deadlines already past (every deposit would revert).
 * Kept current in the background: answering never costs an RPC call.
 */
export interface ChainClock {
  /**
   * The chain's current time in unix seconds: its latest block timestamp, advanced by the time since it was
   * read, and never earlier than the server's clock (an idle chain's latest block can be arbitrarily old,
   * and the next block it mines carries at least the current time). Unknown or unreadable chains: the server's
   * clock.
   */
  now(chainName: string): number;
  /** Reads every chain once (at start), then keeps reading every `refreshMs`. */
  start(): Promise<void>;
  stop(): void;
  /** Reads every chain now and waits for it (start, and tests that move a devnet's clock). */
  refresh(): Promise<void>;
}

export interface ChainClockOptions {
  readonly registry: ChainRegistry;
  readonly clock: Clock;
  readonly refreshMs: number;
  readonly log: ClockLog;
  readonly rpcErrors?: RpcErrorCounter;
}

export function createChainClock(options: ChainClockOptions): ChainClock {
  const { registry, clock, refreshMs, log } = options;
  /** chain → latest block timestamp (s) and when it was read (ms, monotonic). */
  const readings = new Map<string, { blockTime: number; readAt: number }>();
  const unreachable = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let refreshing: Promise<void> | null = null;

  const clientFor = publicClientsFor(registry, 5000, options.rpcErrors);

  async function readChain(name: string): Promise<void> {
    try {
      const block = await clientFor(name).getBlock({ blockTag: 'latest' });
      readings.set(name, { blockTime: Number(block.timestamp), readAt: performance.now() });
      unreachable.delete(name);
    } catch (error) {
      // The last reading (extrapolated) or the server's clock stands in; logged once per outage, without the
      // RPC URL (it may carry credentials).
      if (!unreachable.has(name)) {
        unreachable.add(name);
        log.warn(
          { chain: name, err: (error as Error).name },
          'chain clock: latest block unreadable; deadlines use the last reading or the server clock',
        );
      }
    }
  }

  function refresh(): Promise<void> {
    refreshing ??= Promise.all(registry.chains.map((c) => readChain(c.name)))
      .then(() => undefined)
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  return {
    now(chainName) {
      const server = unixSeconds(clock.now());
      const reading = readings.get(chainName);
      if (!reading) return server;
      const estimate = reading.blockTime + Math.floor((performance.now() - reading.readAt) / 1000);
      return Math.max(server, estimate);
    },
    async start() {
      if (timer) return;
      timer = setInterval(() => void refresh(), refreshMs);
      timer.unref();
      await refresh();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
    refresh,
  };
}
