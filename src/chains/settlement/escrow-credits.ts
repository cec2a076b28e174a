import { getAddress, type Hex } from 'viem';
import type { Address } from '../../domain/address.ts';
import { type ChainRegistry, registryChain } from '../chain-registry.ts';
import { loadArtifact } from '../contract-artifacts.ts';
import { lzChainClient, writeLz } from '../layerzero/lz-chain-client.ts';
import { publicClientsFor } from '../viem-client.ts';
import { readEscrowFeeRecipients } from './escrow-fee-recipient.ts';

const escrowAbi = loadArtifact('FerryEscrow').abi;

/** What one chain's escrow owes one account in one registry token (`owed(token, account)`). */
export interface EscrowCredit {
  readonly chain: string;
  readonly escrow: Address;
  readonly token: Address;
  readonly symbol: string;
  readonly decimals: number;
  readonly account: Address;
  readonly owed: bigint;
}

/**
 * What every registry chain's escrow owes `account` in each of the chain's tokens: accrued protocol fees for the
 * fee recipient, payouts and refunds the token refused for a filler or an offerer. Without `account`, each escrow's
 * own fee recipient.
 */
export async function readEscrowCredits(registry: ChainRegistry, account?: Address): Promise<EscrowCredit[]> {
  const client = publicClientsFor(registry, 10_000);
  const recipients = account ? null : await readEscrowFeeRecipients(registry);
  const rows = await Promise.all(
    registry.chains.flatMap((chain) => {
      const holder = account ?? (recipients?.get(chain.name) as Address);
      return chain.tokens.map(async (token) => {
        const owed = (await client(chain.name).readContract({
          address: chain.contracts.escrow,
          abi: escrowAbi,
          functionName: 'owed',
          args: [token.address, holder],
        })) as bigint;
        return {
          chain: chain.name,
          escrow: chain.contracts.escrow,
          token: token.address,
          symbol: token.symbol,
          decimals: token.decimals,
          account: getAddress(holder) as Address,
          owed,
        };
      });
    }),
  );
  return rows;
}

/**
 * Sends `withdraw(token, account)` for `credit`, signed by `privateKey` (any funded key: the escrow pays only the
 * credit's account) and waits for its receipt. Throws with the escrow's error when it reverts (the token still
 * refuses the transfer, or nothing is owed any more).
 */
export async function withdrawEscrowCredit(
  registry: ChainRegistry,
  credit: EscrowCredit,
  privateKey: Hex,
): Promise<Hex> {
  const chain = registryChain(registry, credit.chain);
  const client = lzChainClient(chain.rpcUrl, chain.chainId, privateKey);
  const receipt = await writeLz(client, {
    address: credit.escrow,
    abi: escrowAbi,
    functionName: 'withdraw',
    args: [credit.token, credit.account],
  });
  return receipt.transactionHash;
}
