import { type Chain, defineChain } from 'viem';

/** A viem chain for an RPC URL Ferry knows only by its chain id (devnets, and chains `ferry deploy` targets). */
export function devnetChain(chainId: number, rpcUrl: string, name = `devnet-${chainId}`): Chain {
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}
