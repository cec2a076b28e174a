import { type Address, getAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainError } from '../chains/chain-error.ts';
import type { ChainLogger } from '../chains/chain-logger.ts';
import { createChainRegistry } from '../chains/chain-registry.ts';
import { loadArtifact } from '../chains/contract-artifacts.ts';
import { loadLzArtifact } from '../chains/layerzero/lz-artifacts.ts';
import { lzChainClient } from '../chains/layerzero/lz-chain-client.ts';
import type { LzChainDeployment } from '../chains/layerzero/lz-chain-deployment.ts';
import { checkFerryAppLocked } from '../deploy/ferry-app-lock.ts';
import { wireFerryChains } from '../deploy/ferry-wire.ts';
import type { DevnetChainConfig } from './devnet-chain-config.ts';
import { devnetRegistryFile } from './devnet-registry.ts';
import { deployLzChain, wireLzPath } from './layerzero/lz-deploy.ts';
import { type LzRelay, type LzRelayOptions, startLzRelay } from './layerzero/lz-relay.ts';

/*
 * LayerZero's side of the devnets, with keys of its own (anvil's well-known accounts 6-9, devnets only; Ferry's
 * deployer is account 0, the attester 1, the demo wallets 2-4, the worker's relayer 5). LayerZero's contracts are
 * deployed by an account that is not Ferry's, as on a real chain, where LayerZero deployed them long before.
 */

/** Accounts 6 and 7: one key per DVN, so no single key can verify a message alone. */
export const DEVNET_DVN_KEYS: readonly Hex[] = [
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
];
/** Account 8: the off-chain executor, which commits verified messages and calls lzReceive. */
export const DEVNET_EXECUTOR_KEY: Hex = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97';
/** Account 9: deploys LayerZero's contracts and owns the endpoints and libraries (its "LayerZero Labs"). */
export const DEVNET_LZ_OWNER_KEY: Hex = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';
/** LayerZero endpoint ids of devnet-a and devnet-b (eids are LayerZero's numbering, not EVM chain ids). */
export const DEVNET_LZ_EIDS = [40901, 40902] as const;
/** Blocks a packet waits on its source devnet before the DVNs verify it (its own block counts). */
export const DEVNET_LZ_CONFIRMATIONS = 1;

/**
 * LayerZero V2 on one devnet: endpoint, ULN302 libraries, one DVN per DVN key and the executor, with the endpoint's
 * default path to `remoteEid` wired (Ferry's app pins its own config on top, so these defaults do not bind it).
 */
export async function deployDevnetLayerZero(
  rpcUrl: string,
  chainId: number,
  eid: number,
  remoteEid: number,
): Promise<LzChainDeployment> {
  const owner = lzChainClient(rpcUrl, chainId, DEVNET_LZ_OWNER_KEY);
  const lz = await deployLzChain({
    deployer: owner,
    eid,
    dvnKeys: DEVNET_DVN_KEYS,
    executorKey: DEVNET_EXECUTOR_KEY,
  });
  await wireLzPath(owner, lz, { eid: remoteEid }, BigInt(DEVNET_LZ_CONFIRMATIONS));
  return lz;
}

/**
 * The LayerZero deployment of a devnet restored from its state file, read back from the chain through Ferry's
 * app: its endpoint, the libraries and the executor it pinned for `remoteEid`, the DVNs of its ULN config.
 */
export async function readDevnetLayerZero(
  rpcUrl: string,
  chainId: number,
  app: Address,
  remoteEid: number,
  startBlock: bigint,
): Promise<LzChainDeployment> {
  const { publicClient } = lzChainClient(rpcUrl, chainId, DEVNET_LZ_OWNER_KEY);
  const read = (
    address: Address,
    abi: readonly unknown[],
    functionName: string,
    args: readonly unknown[] = [],
  ) => publicClient.readContract({ address, abi, functionName, args } as never) as Promise<unknown>;
  const endpointAbi = loadLzArtifact('EndpointV2').abi;
  const endpoint = getAddress((await read(app, loadArtifact('FerryApp').abi, 'endpoint')) as Address);
  const eid = Number(await read(endpoint, endpointAbi, 'eid'));
  const sendUln302 = (await read(endpoint, endpointAbi, 'getSendLibrary', [app, remoteEid])) as Address;
  const [receiveUln302] = (await read(endpoint, endpointAbi, 'getReceiveLibrary', [app, remoteEid])) as [
    Address,
  ];
  const { executor } = (await read(sendUln302, loadLzArtifact('SendUln302').abi, 'getExecutorConfig', [
    app,
    remoteEid,
  ])) as { executor: Address };
  const uln = (await read(receiveUln302, loadLzArtifact('ReceiveUln302').abi, 'getUlnConfig', [
    app,
    remoteEid,
  ])) as { requiredDVNs: readonly Address[] };
  const dvnAbi = loadLzArtifact('DVN').abi;
  const signers = DEVNET_DVN_KEYS.map((key) => privateKeyToAccount(key).address);
  const dvns = [];
  for (const address of uln.requiredDVNs) {
    const vid = Number(await read(address, dvnAbi, 'vid'));
    const signer = signers[vid - 1];
    if (!signer || (await read(address, dvnAbi, 'signers', [signer])) !== true) {
      throw new ChainError(`devnet DVN ${address} on chain ${chainId} is not signed for by its devnet key`);
    }
    dvns.push({ address: getAddress(address), vid, signer });
  }
  dvns.sort((a, b) => a.vid - b.vid);
  const workerFeeLib = getAddress(
    (await read(executor, loadLzArtifact('Executor').abi, 'workerFeeLib')) as Address,
  );
  return {
    chainId,
    eid,
    endpoint,
    sendUln302: getAddress(sendUln302),
    receiveUln302: getAddress(receiveUln302),
    dvns,
    executor: getAddress(executor),
    workerFeeLib,
    startBlock,
  };
}

export type DevnetRelayOptions = Partial<
  Pick<LzRelayOptions, 'pollIntervalMs' | 'onDelivered' | 'onError' | 'retryBaseMs' | 'retryMaxMs'>
>;

/**
 * The devnets' DVNs and executor: one relay over both chains, with the devnet keys. A packet waits for its source
 * chain's own confirmations, the figure the registry gives receiving apps for that chain.
 */
export function startDevnetRelay(
  chains: readonly { rpcUrl: string; confirmations: number; layerzero: LzChainDeployment }[],
  log: ChainLogger | undefined,
  options: DevnetRelayOptions = {},
): LzRelay {
  log?.info({ eids: chains.map((c) => c.layerzero.eid) }, 'LayerZero relay started (two DVNs, executor)');
  return startLzRelay({
    chains: chains.map((chain) => ({
      rpcUrl: chain.rpcUrl,
      deployment: chain.layerzero,
      confirmations: BigInt(chain.confirmations),
    })),
    dvnKeys: DEVNET_DVN_KEYS,
    executorKey: DEVNET_EXECUTOR_KEY,
    confirmations: BigInt(DEVNET_LZ_CONFIRMATIONS),
    pollIntervalMs: 100,
    ...options,
    ...(log ? { log } : {}),
  });
}

/**
 * Fresh devnets get their apps wired to each other and locked, with Ferry's deployer key; restored
 * ones must be wired and locked already (a state file written half-way is refused).
 */
export async function wireDevnetApps(
  chains: readonly DevnetChainConfig[],
  step: 'wire' | 'check',
  deployerKey: Hex,
  log: ChainLogger | undefined,
): Promise<void> {
  const registry = createChainRegistry(devnetRegistryFile({ chains }));
  if (step === 'wire') {
    await wireFerryChains(registry.chains, { deployerKey, ...(log ? { log } : {}) });
    return;
  }
  for (const chain of registry.chains) {
    const problems = await checkFerryAppLocked(chain, registry);
    if (problems.length > 0)
      throw new ChainError(`${problems.join('; ')}; delete the devnet state files to start afresh`);
  }
}
