import type { Address } from 'viem';

/**
 * What the relay and an OApp need to know about LayerZero V2 on one chain. lz-deploy.ts makes it, but the OApp config
 * it deploys with reads it too, so it sits below both.
 */
export interface LzChainDeployment {
  chainId: number;
  /** LayerZero's endpoint id for this chain (not the EVM chain id). */
  eid: number;
  endpoint: Address;
  sendUln302: Address;
  receiveUln302: Address;
  /** The DVN contracts on this chain, in the order of `dvnKeys`: each verifies inbound packets with its own key. */
  dvns: LzDvnDeployment[];
  /** LayerZero's Executor contract: quotes executor work to SendUln302 (the off-chain executor does the work). */
  executor: Address;
  /** Fee library of both workers: quotes 0 for every job. */
  workerFeeLib: Address;
  /** First block holding a LayerZero contract: the relay's log scans start here. */
  startBlock: bigint;
}

export interface LzDvnDeployment {
  address: Address;
  /** The DVN's id in signed instructions (its `vid`). */
  vid: number;
  /** The one signer (quorum 1); the same key is an admin, so it also submits `execute`. */
  signer: Address;
}
