import { createPublicClient, http, type PublicClient, type Chain as ViemChain } from 'viem';
import type { ChainRegistry } from './chain-registry.ts';

/** A viem public client for a registry chain, by name. Callers cache it: one per chain per component. */
export function publicClientFor(registry: ChainRegistry, name: string, timeoutMs: number): PublicClient {
  const chain = registry.chain(name);
  if (!chain) throw new Error(`chain ${name} is not in the registry`);
  const viemChain = {
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  } satisfies ViemChain;
  return createPublicClient({
    chain: viemChain,
    transport: http(chain.rpcUrl, { timeout: timeoutMs, retryCount: 1 }),
  });
}
