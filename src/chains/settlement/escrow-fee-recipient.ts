import { getAddress } from 'viem';
import type { Address } from '../../domain/address.ts';
import type { ChainRegistry } from '../chain-registry.ts';
import { loadArtifact } from '../contract-artifacts.ts';
import { publicClientsFor } from '../viem-client.ts';

const escrowAbi = loadArtifact('FerryEscrow').abi;

/** An escrow's protocol fee terms, both immutable (fixed at deployment). */
export interface EscrowFeeTerms {
  readonly recipient: Address;
  readonly bps: number;
}

/** Each chain's escrow's `feeRecipient`, by chain name. */
export async function readEscrowFeeRecipients(registry: ChainRegistry): Promise<Map<string, Address>> {
  const terms = await readEscrowFeeTerms(registry);
  return new Map([...terms].map(([chain, t]) => [chain, t.recipient]));
}

/** Each chain's escrow's `feeRecipient` and `protocolFeeBps`, by chain name. */
export async function readEscrowFeeTerms(registry: ChainRegistry): Promise<Map<string, EscrowFeeTerms>> {
  const client = publicClientsFor(registry, 10_000);
  const entries = await Promise.all(
    registry.chains.map(async (chain) => {
      const read = (functionName: 'feeRecipient' | 'protocolFeeBps') =>
        client(chain.name).readContract({ address: chain.contracts.escrow, abi: escrowAbi, functionName });
      const [recipient, bps] = await Promise.all([read('feeRecipient'), read('protocolFeeBps')]);
      return [
        chain.name,
        { recipient: getAddress(recipient as string) as Address, bps: Number(bps as bigint) },
      ] as const;
    }),
  );
  return new Map(entries);
}
