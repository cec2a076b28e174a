import { type Chain, defineChain } from 'viem';

/** A viem chain for an RPC URL Ferry knows only by its chain id (chains `ferry deploy` targets, and devnets). */
export function chainById(chainId: number, rpcUrl: string, name = `chain-${chainId}`): Chain {
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}
