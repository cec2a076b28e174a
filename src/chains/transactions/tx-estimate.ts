import { type Address, EstimateGasExecutionError, type Hex, type PublicClient } from 'viem';
import { walkCauses } from '../../domain/cause-walk.ts';
import type { Fees } from '../../domain/fee-bump.ts';
import { FerryError } from '../../domain/ferry-error.ts';

/**
 * The node refused to estimate a transaction because executing it reverts (a paused token, a blacklisted address):
 * nothing was written down or sent. Not retryable as is: the same call against the same state reverts again.
 */
export class WouldRevertError extends FerryError {
  override readonly name = 'WouldRevertError';
  constructor(what: string, cause: unknown) {
    super(`${what} would revert (the node refused to estimate its gas)`, { cause, retryable: false });
  }
}

/**
 * eth_estimateGas for `call` from its sender at the fees it will be sent with, with a refusal because it reverts
 * turned into WouldRevertError (RPC failures pass).
 */
export async function estimateGasOrRevert(
  client: PublicClient,
  kind: string,
  call: { readonly chain: string; readonly to: Address; readonly data: Hex },
  from: Address,
  value: bigint | undefined,
  fees: Fees,
): Promise<bigint> {
  try {
    return await client.estimateGas({ account: from, to: call.to, data: call.data, value, ...fees });
  } catch (error) {
    if (walkCauses(error, (e) => e instanceof EstimateGasExecutionError)) {
      throw new WouldRevertError(`${kind} on ${call.chain}`, error);
    }
    throw error;
  }
}
