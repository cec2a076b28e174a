import { type Chain, defineChain } from 'viem';

/**
 * A viem chain for an RPC URL, known by its chain id: a registry chain's clients, the chains `ferry deploy` targets
 * and devnets all describe their chain this one way.
 */
export function chainById(chainId: number, rpcUrl: string, name = `chain-${chainId}`): Chain {
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}
