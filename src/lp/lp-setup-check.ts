import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { ChainClients } from '../chains/settlement/lp-chain-clients.ts';
import { type ChainInfo, type FerryApi, FerryApiError } from './ferry-api.ts';
import { pinChains } from './lp-chain-pins.ts';

/**
 * What would otherwise fail on every pass, checked once before the first: the API key is a liquidity
 * provider's, this private key's address is that account's fill address (the only wallet that may fill its
 * orders), every chain's RPC answers with the right chain id, and the contracts and tokens the API names are the
 * ones the chains file pins and the chains confirm (lp-chain-pins.ts). The first problem as one sentence, or the
 * chains (with their RPCs checked).
 */
export async function checkLpSetup(deps: {
  api: FerryApi;
  account: PrivateKeyAccount;
  pinned: ChainRegistry | null;
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
  const listed = await api.chains();
  const chains = deps.pinned ? listed.filter((info) => deps.pinned?.chain(info.name)) : listed;
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
  try {
    return await pinChains(chains, deps.pinned, clientsFor);
  } catch (error) {
    const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message;
    return { problem: `the contracts the API names could not be checked on chain (${reason})` };
  }
}
