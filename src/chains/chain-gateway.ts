import { erc20Abi, type PublicClient } from 'viem';
import type { Address } from '../domain/address.ts';
import { AppError } from '../domain/app-error.ts';
import type { ChainRegistry } from './chain-registry.ts';
import { publicClientFor } from './viem-client.ts';

/** What the API needs from chains. The settlement worker has its own, wider interface. */
export interface ChainGateway {
  balanceOf(chainName: string, token: Address, owner: Address): Promise<bigint>;
}

/** Talks to every chain of the registry over JSON-RPC with viem. */
export function createChainGateway({ registry }: { registry: ChainRegistry }): ChainGateway {
  const clients = new Map<string, PublicClient>();
  const clientFor = (chainName: string): PublicClient => {
    let client = clients.get(chainName);
    if (!client) {
      client = publicClientFor(registry, chainName, 5000);
      clients.set(chainName, client);
    }
    return client;
  };
  // Identical balance reads in flight at the same moment share one RPC call (single flight): under load many
  // requests check the same offerer, and each would otherwise queue its own call on the node. Nothing is kept
  // after the call returns, so a read never answers with a balance older than one RPC round trip.
  const inFlight = new Map<string, Promise<bigint>>();
  const readBalance = (chainName: string, token: Address, owner: Address): Promise<bigint> => {
    const key = `${chainName}:${token}:${owner}`;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = clientFor(chainName)
        .readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };
  return {
    async balanceOf(chainName, token, owner) {
      try {
        return await readBalance(chainName, token, owner);
      } catch {
        // RPC failures are converted here, at the boundary; the RPC URL (possibly with credentials) stays out.
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `chain ${chainName} could not be reached; try again shortly`,
          [],
          {
            'retry-after': '5',
          },
        );
      }
    },
  };
}
