import { getAddress } from 'viem';
import type { Address } from '../domain/address.ts';
import type { ChainRegistry } from './chain-registry.ts';
import { loadArtifact } from './contract-artifacts.ts';
import { publicClientsFor } from './viem-client.ts';

const escrowAbi = loadArtifact('FerryEscrow').abi;

/** Each chain's escrow's `feeRecipient` (immutable, fixed at deployment), by chain name. */
export async function readEscrowFeeRecipients(registry: ChainRegistry): Promise<Map<string, Address>> {
  const client = publicClientsFor(registry, 10_000);
  const entries = await Promise.all(
    registry.chains.map(async (chain) => {
      const recipient = await client(chain.name).readContract({
        address: chain.contracts.escrow,
        abi: escrowAbi,
        functionName: 'feeRecipient',
      });
      return [chain.name, getAddress(recipient as string) as Address] as const;
    }),
  );
  return new Map(entries);
}
