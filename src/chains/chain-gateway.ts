import { erc20Abi } from 'viem';
import type { Address } from '../domain/address.ts';
import { AppError } from '../domain/app-error.ts';
import type { Clock } from '../domain/clock.ts';
import type { ChainRegistry } from './chain-registry.ts';
import { publicClientsFor, type RpcErrorCounter } from './viem-client.ts';

/** What the API needs from chains. The settlement worker has its own, wider interface. */
export interface ChainGateway {
  /**
   * The owner's balance of a token, for a check against `needed`. A reading younger than the cache age that
   * already covers `needed` is answered without an RPC call; any other answer is a fresh read.
   */
  balanceOf(chainName: string, token: Address, owner: Address, needed: bigint): Promise<bigint>;
}

export interface ChainGatewayOptions {
  readonly registry: ChainRegistry;
  readonly clock: Clock;
  /** How long a balance reading may answer checks it covers (BALANCE_CACHE_MS); 0 reads every time. */
  readonly balanceCacheMs: number;
  readonly maxCachedBalances?: number;
  readonly rpcErrors?: RpcErrorCounter;
}

/** Talks to every chain of the registry over JSON-RPC with viem. */
export function createChainGateway(options: ChainGatewayOptions): ChainGateway {
  const { registry, clock, balanceCacheMs } = options;
  const maxCached = options.maxCachedBalances ?? 10_000;
  const clientFor = publicClientsFor(registry, 5000, options.rpcErrors);

  // Identical balance reads in flight at the same moment share one RPC call (single flight): under load many
  // requests check the same offerer, and each would otherwise queue its own call on the node.
  const inFlight = new Map<string, Promise<bigint>>();
  // The last reading per (chain, token, owner). It may only say yes: the check at quote-request time is advisory
  // (the deposit checks again, on chain), so a reading that covers the amount can be a second old, but a
  // reading that does not is never trusted: an offerer who has just topped up must not be refused from memory.
  const readings = new Map<string, { balance: bigint; at: number }>();

  const remember = (key: string, balance: bigint) => {
    readings.delete(key);
    readings.set(key, { balance, at: clock.now().getTime() });
    if (readings.size > maxCached) {
      const oldest = readings.keys().next().value;
      if (oldest !== undefined) readings.delete(oldest);
    }
  };

  const readBalance = (key: string, chainName: string, token: Address, owner: Address): Promise<bigint> => {
    let pending = inFlight.get(key);
    if (!pending) {
      pending = clientFor(chainName)
        .readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
        .then((balance) => {
          if (balanceCacheMs > 0) remember(key, balance);
          return balance;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };

  return {
    async balanceOf(chainName, token, owner, needed) {
      const key = `${chainName}:${token}:${owner}`;
      const reading = readings.get(key);
      if (reading && reading.balance >= needed && clock.now().getTime() - reading.at < balanceCacheMs) {
        return reading.balance;
      }
      try {
        return await readBalance(key, chainName, token, owner);
      } catch (error) {
        // RPC failures are converted here, at the boundary; the RPC URL (possibly with credentials) stays out of
        // the body (the cause is never sent, and its log line keeps only the host).
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `chain ${chainName} could not be reached; try again shortly`,
          [],
          { 'retry-after': '5' },
          { cause: error },
        );
      }
    },
  };
}
