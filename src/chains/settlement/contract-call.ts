import type { Hex } from 'viem';
import type { Address } from '../../domain/address.ts';

/**
 * A call for the worker to send. settlement-chain.ts and proof-message-chain.ts (which settlement-chain.ts builds on)
 * both return it, so it sits below both.
 */
export interface ContractCall {
  readonly chain: string;
  readonly to: Address;
  readonly data: Hex;
  /** Native coin sent with the call (a LayerZero message's fee), in wei. */
  readonly value?: bigint;
}
