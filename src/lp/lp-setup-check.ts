import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainClients } from '../chains/lp-chain-clients.ts';
import { type ChainInfo, type FerryApi, FerryApiError } from './ferry-api.ts';

/**
 * What would otherwise fail on every pass, checked once before the first: the API key is a liquidity
 * provider's, this private key's address is that account's fill address (the only wallet that may fill its
 * orders), and every chain's RPC answers with the right chain id. The first problem as one sentence, or the
 * chains (with their RPCs checked).
 */
export async function checkLpSetup(deps: {
  api: FerryApi;
  account: PrivateKeyAccount;
  clientsFor(info: ChainInfo): ChainClients;
}): Promise<{ problem: string } | { chains: ChainInfo[] }> {
  const { api, account, clientsFor } = deps;
  let me: Awaited<ReturnType<FerryApi['account']>>;
  try {
    me = await api.account();
  } catch (error) {
    if (error instanceof FerryApiError && error.status === 401)
      return { problem: `the API key is not valid at ${api.baseUrl} (${error.code}: ${error.message})` };
    return { problem: `Ferry at ${api.baseUrl} does not answer (${(error as Error).message})` };
  }
  if (me.type !== 'liquidityProvider')
    return { problem: `the API key belongs to ${me.type} account ${me.id}, not to a liquidity provider` };
  if (me.address?.toLowerCase() !== account.address.toLowerCase()) {
    return {
      problem: `the private key's address ${account.address} is not the fill address of account ${me.id} (${me.address ?? 'none'})`,
    };
  }
  const chains = await api.chains();
  for (const info of chains) {
    try {
      const chainId = await clientsFor(info).public.getChainId();
      if (chainId !== info.chainId)
        return {
          problem: `the RPC of chain ${info.name} is chain id ${chainId}, not ${info.chainId}; check --rpc-url ${info.name}=URL`,
        };
    } catch (error) {
      // Only viem's short message: the full one repeats the URL, which may carry a provider key.
      const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message;
      return {
        problem: `the RPC of chain ${info.name} does not answer (${reason}); check --rpc-url ${info.name}=URL`,
      };
    }
  }
  return { chains };
}
