import { type Address, getAddress, type Hex } from 'viem';
import { createChainRegistry } from '../../src/chains/chain-registry.ts';
import type { LzChainDeployment } from '../../src/chains/layerzero/lz-chain-deployment.ts';
import { deployFerryChain } from '../../src/deploy/ferry-deploy.ts';
import { wireFerryChains } from '../../src/deploy/ferry-wire.ts';
import {
  DEVNET_DVN_KEYS,
  DEVNET_EXECUTOR_KEY,
  DEVNET_LZ_CONFIRMATIONS,
  DEVNET_LZ_OWNER_KEY,
  deployDevnetLayerZero,
} from '../../src/devnet/devnet-layerzero.ts';
import { devnetRegistryFile } from '../../src/devnet/devnet-registry.ts';

/**
 * Ferry on LayerZero for contract-level tests and the gas bench, through the devnets' own deployment code:
 * LayerZero V2 deployed by its own key (deployDevnetLayerZero), Ferry's app and escrow (deployFerryChain), both apps
 * wired to each other and locked (wireFerryChains).
 */
export const DVN_KEYS: readonly Hex[] = DEVNET_DVN_KEYS;
export const EXECUTOR_KEY: Hex = DEVNET_EXECUTOR_KEY;
/** Owns LayerZero's endpoints and libraries (not one of Ferry's keys). */
export const LZ_OWNER_KEY: Hex = DEVNET_LZ_OWNER_KEY;
export const CONFIRMATIONS = BigInt(DEVNET_LZ_CONFIRMATIONS);

export interface FerryLzChain {
  lz: LzChainDeployment;
  app: Address;
  escrow: Address;
  startBlock: bigint;
}

/** LayerZero V2 on the chain (with its default path to `remoteEid`), then FerryApp and FerryEscrow(app). */
export async function deployFerryLzChain(
  chain: { rpcUrl: string; chainId: number },
  deployerKey: Hex,
  eids: { eid: number; remoteEid: number },
  settleGrace: number,
  feeRecipient?: Address,
  protocolFeeBps = 0,
): Promise<FerryLzChain> {
  const lz = await deployDevnetLayerZero(chain.rpcUrl, chain.chainId, eids.eid, eids.remoteEid);
  const { contracts, startBlock } = await deployFerryChain({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    deployerKey,
    settlement: { method: 'layerzero', endpoint: lz.endpoint, eid: eids.eid },
    settleGrace,
    ...(feeRecipient ? { feeRecipient } : {}),
    protocolFeeBps,
  });
  return { lz, app: getAddress(contracts.fill), escrow: getAddress(contracts.escrow), startBlock };
}

/** Wires the apps of `chains` to each other and locks them (delegate cleared, ownership renounced). */
export async function wireAndLockFerryLzChains(
  chains: readonly { name: string; rpcUrl: string; chainId: number; ferry: FerryLzChain }[],
  deployerKey: Hex,
): Promise<void> {
  const registry = createChainRegistry(
    devnetRegistryFile({
      chains: chains.map((c) => ({
        name: c.name,
        chainId: c.chainId,
        rpcUrl: c.rpcUrl,
        confirmations: DEVNET_LZ_CONFIRMATIONS,
        startBlock: c.ferry.startBlock,
        contracts: { escrow: c.ferry.escrow, fill: c.ferry.app },
        explorerUrl: undefined,
        tokens: [],
        messenger: 'layerzero',
        layerzero: c.ferry.lz,
      })),
    }),
  );
  await wireFerryChains(registry.chains, { deployerKey });
}
