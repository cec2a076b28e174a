import { type Address, getAddress, type Hex, type PublicClient, zeroAddress } from 'viem';
import type { ChainLogger } from '../chains/chain-logger.ts';
import type { Chain, LayerZeroChain } from '../chains/chain-registry.ts';
import { loadArtifact } from '../chains/contract-artifacts.ts';
import { loadLzArtifact } from '../chains/layerzero/lz-artifacts.ts';
import {
  DEFAULT_LZ_RPC_TIMEOUT_MS,
  type LzChainClient,
  lzChainClient,
  writeLz,
} from '../chains/layerzero/lz-chain-client.ts';
import {
  type LzLocalLibraries,
  type LzUlnConfig,
  pinnedUlnConfig,
  setLzOAppConfig,
} from '../chains/layerzero/lz-oapp-config.ts';
import { addressToBytes32 } from '../chains/layerzero/lz-packet.ts';
import { FerryDeployError } from './ferry-deploy.ts';

/** A registry chain that settles through LayerZero, as wiring and the lock check see it. */
export interface FerryLzChain {
  readonly name: string;
  readonly chainId: number;
  readonly rpcUrl: string;
  /** FerryApp: the registry's `contracts.fill`. */
  readonly app: Address;
  readonly escrow: Address;
  readonly lz: LayerZeroChain;
}

export function ferryLzChain(chain: Chain): FerryLzChain {
  if (chain.settlement.method !== 'layerzero') {
    throw new FerryDeployError(`chain ${chain.name} settles through the attester, not LayerZero`);
  }
  return {
    name: chain.name,
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    app: chain.contracts.fill,
    escrow: chain.contracts.escrow,
    lz: chain.settlement.layerzero,
  };
}

export function lzLibraries(lz: LayerZeroChain): LzLocalLibraries {
  return {
    endpoint: lz.endpoint,
    sendUln302: lz.sendLibrary,
    receiveUln302: lz.receiveLibrary,
    executor: lz.executor,
  };
}

/**
 * What `local`'s app pins for the path to and from `remote`: outbound packets wait `local`'s confirmations,
 * inbound ones `remote`'s; both sides name `local`'s own DVN contracts (a DVN is a contract per chain).
 */
export function pinnedPathConfig(
  local: FerryLzChain,
  remote: FerryLzChain,
): { send: LzUlnConfig; receive: LzUlnConfig } {
  return {
    send: pinnedUlnConfig(local.lz, BigInt(local.lz.confirmations)),
    receive: pinnedUlnConfig(local.lz, BigInt(remote.lz.confirmations)),
  };
}

export interface WireFerryChainsOptions {
  /** The key that deployed the apps (their owner and endpoint delegate until they are locked). */
  deployerKey: Hex;
  /** Renounce ownership and clear the endpoint delegate once every path is wired (default true). */
  lock?: boolean;
  rpcTimeoutMs?: number;
  log?: ChainLogger;
}

/**
 * Wires every pair of `chains` both ways (route, peer, pinned send/receive libraries, pinned ULN and executor
 * config), then locks each app: endpoint delegate cleared, ownership renounced. Afterwards no key can change a
 * peer, the escrow or the verifier set. A step already in place is skipped, so a wiring cut short can be run
 * again; an app that is already locked is refused (nothing can change it any more).
 */
export async function wireFerryChains(
  chains: readonly Chain[],
  options: WireFerryChainsOptions,
): Promise<void> {
  const apps = chains.map(ferryLzChain);
  if (apps.length < 2) throw new FerryDeployError('wiring needs at least two LayerZero chains');
  const timeoutMs = options.rpcTimeoutMs ?? DEFAULT_LZ_RPC_TIMEOUT_MS;
  const clients = apps.map((app) => lzChainClient(app.rpcUrl, app.chainId, options.deployerKey, timeoutMs));
  // Every app must still be the deployer's before anything is written, so a refusal leaves no chain half-done.
  for (const [i, local] of apps.entries()) await assertOwner(clients[i] as LzChainClient, local);
  // Each chain's wiring writes on that chain alone, so the chains are wired side by side.
  await Promise.all(
    apps.map(async (local, i) => {
      const client = clients[i] as LzChainClient;
      for (const remote of apps) {
        if (remote === local) continue;
        await wirePath(client, local, remote);
        options.log?.info(
          { chain: local.name, remote: remote.name, eid: remote.lz.eid },
          'Ferry app path wired',
        );
      }
    }),
  );
  if (options.lock === false) return;
  // Locking starts only once every chain is wired: a chain locked early could not be fixed if another failed.
  await Promise.all(
    apps.map(async (local, i) => {
      await lockApp(clients[i] as LzChainClient, local);
      options.log?.info({ chain: local.name, app: local.app }, 'Ferry app locked');
    }),
  );
}

const appAbi = () => loadArtifact('FerryApp').abi;
const endpointAbi = () => loadLzArtifact('EndpointV2').abi;

async function readApp(
  client: LzChainClient,
  app: Address,
  functionName: string,
  args: readonly unknown[] = [],
) {
  return client.publicClient.readContract({ address: app, abi: appAbi(), functionName, args } as never);
}

async function assertOwner(client: LzChainClient, local: FerryLzChain) {
  const owner = getAddress((await readApp(client, local.app, 'owner')) as Address);
  if (owner === zeroAddress) {
    throw new FerryDeployError(
      `the Ferry app on ${local.name} is locked already (no owner): it cannot be rewired`,
    );
  }
  if (owner !== getAddress(client.account)) {
    throw new FerryDeployError(
      `the Ferry app on ${local.name} is owned by ${owner}, not by the deployer key`,
    );
  }
}

async function wirePath(client: LzChainClient, local: FerryLzChain, remote: FerryLzChain) {
  const eid = remote.lz.eid;
  if (Number(await readApp(client, local.app, 'eidOf', [BigInt(remote.chainId)])) !== eid) {
    await writeLz(client, {
      address: local.app,
      abi: appAbi(),
      functionName: 'setRoute',
      args: [BigInt(remote.chainId), eid],
    });
  }
  const peer = addressToBytes32(remote.app);
  if (((await readApp(client, local.app, 'peers', [eid])) as Hex).toLowerCase() !== peer.toLowerCase()) {
    await writeLz(client, { address: local.app, abi: appAbi(), functionName: 'setPeer', args: [eid, peer] });
  }
  await pinLibrary(client, local, eid, 'send');
  await pinLibrary(client, local, eid, 'receive');
  const { send, receive } = pinnedPathConfig(local, remote);
  await setLzOAppConfig(client, lzLibraries(local.lz), local.app, eid, send, receive);
}

/** Sets the app's own library for `eid` unless it is pinned already (the endpoint refuses setting the same one). */
async function pinLibrary(client: LzChainClient, local: FerryLzChain, eid: number, side: 'send' | 'receive') {
  const wanted = side === 'send' ? local.lz.sendLibrary : local.lz.receiveLibrary;
  const [library, isDefault] = await appLibrary(client.publicClient, local.lz.endpoint, local.app, eid, side);
  if (!isDefault && getAddress(library) === getAddress(wanted)) return;
  await writeLz(client, {
    address: local.lz.endpoint,
    abi: endpointAbi(),
    functionName: side === 'send' ? 'setSendLibrary' : 'setReceiveLibrary',
    // A receive library switch without a grace period: the old library stops being accepted at once.
    args: side === 'send' ? [local.app, eid, wanted] : [local.app, eid, wanted, 0n],
  });
}

async function lockApp(client: LzChainClient, local: FerryLzChain) {
  const delegate = (await client.publicClient.readContract({
    address: local.lz.endpoint,
    abi: endpointAbi(),
    functionName: 'delegates',
    args: [local.app],
  })) as Address;
  if (getAddress(delegate) !== zeroAddress) {
    await writeLz(client, {
      address: local.app,
      abi: appAbi(),
      functionName: 'setDelegate',
      args: [zeroAddress],
    });
  }
  await writeLz(client, { address: local.app, abi: appAbi(), functionName: 'renounceOwnership', args: [] });
}

/** The library the endpoint uses for the app's path to or from `eid`, and whether it is the endpoint's default. */
export async function appLibrary(
  publicClient: PublicClient,
  endpoint: Address,
  app: Address,
  eid: number,
  side: 'send' | 'receive',
): Promise<[Address, boolean]> {
  const read = (functionName: string) =>
    publicClient.readContract({
      address: endpoint,
      abi: endpointAbi(),
      functionName,
      args: [app, eid],
    } as never);
  if (side === 'receive') return (await read('getReceiveLibrary')) as [Address, boolean];
  // getSendLibrary answers the library alone; whether it is the default is a call of its own.
  const [library, isDefault] = await Promise.all([read('getSendLibrary'), read('isDefaultSendLibrary')]);
  return [library as Address, isDefault as boolean];
}
