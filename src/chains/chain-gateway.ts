import { createPublicClient, erc20Abi, http, type PublicClient, type Chain as ViemChain } from 'viem';
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
  return {
    async balanceOf(chainName, token, owner) {
      try {
        return await clientFor(chainName).readContract({
          address: token,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [owner],
        });
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
