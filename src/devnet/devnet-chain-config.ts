import type { Address } from 'viem';
import type { LzChainDeployment } from '../chains/layerzero/lz-chain-deployment.ts';
import type { DevnetToken } from './devnet-tokens.ts';
import type { SafeContracts } from './safe-devnet.ts';

/** `fill` is FerryApp on LayerZero devnets; `messenger` (AttesterMessenger) exists on attester devnets only. */
export interface DevnetContracts {
  escrow: Address;
  fill: Address;
  messenger?: Address;
}

export type DevnetMessenger = 'layerzero' | 'attester';

/**
 * One started devnet chain. devnet.ts starts the devnets through devnet-layerzero.ts and devnet-registry.ts, which
 * read it too, so it sits below all three.
 */
export interface DevnetChainConfig {
  name: string;
  chainId: number;
  rpcUrl: string;
  confirmations: number;
  startBlock: bigint;
  contracts: DevnetContracts;
  explorerUrl: string | undefined;
  tokens: DevnetToken[];
  messenger: DevnetMessenger;
  /** LayerZero V2 on this devnet; null on attester devnets. */
  layerzero: LzChainDeployment | null;
  /** Safe's contracts (contract-wallet offerers, EIP-1271): safe-devnet.ts; absent on chains set up by hand. */
  safe?: SafeContracts;
}
