import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import { type ChainClients, chainClients } from '../chains/settlement/lp-chain-clients.ts';
import type { ChainInfo, FerryApi } from './ferry-api.ts';
import { pinChains } from './lp-chain-pins.ts';
import { LpBotError } from './lp-error.ts';

/** The chains the bot trades on, as the API names them once pinned, and one set of RPC clients per chain. */
export interface LpChainAccess {
  /** The chain called `name`, refreshed from the API when unknown; null when it is not one the bot trades on. */
  chain(name: string): Promise<ChainInfo | null>;
  clientsFor(info: ChainInfo): ChainClients;
  /** The chains known now (without asking the API). */
  known(name: string): ChainInfo | undefined;
  names(): IterableIterator<string>;
  size(): number;
  /** The API's chains, taken only once pinned (lp-chain-pins.ts); a disagreement throws instead. */
  refresh(): Promise<void>;
  set(chains: readonly ChainInfo[]): void;
}

export function createLpChainAccess(input: {
  readonly api: FerryApi;
  readonly account: PrivateKeyAccount;
  readonly pinned: ChainRegistry | null;
  readonly rpcUrls: Readonly<Record<string, string>> | undefined;
}): LpChainAccess {
  const { api, account, pinned } = input;
  let chains = new Map<string, ChainInfo>();
  const clients = new Map<string, ChainClients>();
  const access: LpChainAccess = {
    async refresh() {
      const checked = await pinChains(await api.chains(), pinned, access.clientsFor);
      if ('problem' in checked) throw new LpBotError(`not trading: ${checked.problem}`);
      access.set(checked.chains);
    },
    set(list) {
      chains = new Map(list.map((c) => [c.name, c]));
    },
    async chain(name) {
      if (!chains.has(name) && !(pinned && !pinned.chain(name))) await access.refresh();
      return chains.get(name) ?? null;
    },
    known: (name) => chains.get(name),
    names: () => chains.keys(),
    size: () => chains.size,
    clientsFor(info) {
      let c = clients.get(info.name);
      if (!c) {
        // A pinned chain is read through its own RPC: the API's could answer the pinning checks and show deposits
        // that do not exist.
        const rpcUrl = input.rpcUrls?.[info.name] ?? pinned?.chain(info.name)?.rpcUrl ?? info.rpcUrl;
        if (!rpcUrl)
          throw new LpBotError(`chain ${info.name} has no public rpcUrl; pass --rpc-url ${info.name}=URL`);
        c = chainClients({ name: info.name, chainId: info.chainId, rpcUrl }, account);
        clients.set(info.name, c);
      }
      return c;
    },
  };
  return access;
}
