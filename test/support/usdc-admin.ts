import type { Address, TransactionReceipt } from 'viem';
import { lzChainClient, writeLz } from '../../src/chains/layerzero/lz-chain-client.ts';
import { DEVNET_DEPLOYER_KEY } from '../../src/devnet/devnet.ts';
import { usdcAbi } from '../../src/devnet/usdc-devnet.ts';
import type { Harness } from './harness.ts';

/** What the devnet deployer (USDC's blacklister and pauser on both devnets) can do to Circle's token. */
export type UsdcAdminCall =
  | { functionName: 'blacklist' | 'unBlacklist'; who: Address }
  | { functionName: 'pause' | 'unpause' };

/** Blacklists, clears, pauses or unpauses the devnet USDC (FiatTokenV2_2) of `chain`. */
export function usdcAdmin(h: Harness, chain: string, call: UsdcAdminCall): Promise<TransactionReceipt> {
  const entry = h.registry.chain(chain)!;
  return writeLz(lzChainClient(entry.rpcUrl, entry.chainId, DEVNET_DEPLOYER_KEY), {
    address: entry.tokens.find((t) => t.symbol === 'USDC')!.address,
    abi: usdcAbi,
    functionName: call.functionName,
    args: 'who' in call ? [call.who] : [],
  });
}
