import { type AbiFunction, type Address, type PublicClient, toFunctionSelector } from 'viem';
import { ChainError } from '../chains/chain-error.ts';
import { loadArtifact } from '../chains/contract-artifacts.ts';

/** How far past the tokens the first Ferry contract may sit (LayerZero's own deployment comes before it). */
const MAX_BLOCKS_BEFORE_FERRY = 64;

/**
 * On a chain restored from a state file the deployment receipts are not at hand; the first Ferry contract is the
 * deployer's creation with nonce `nonce`, mined alone in a block of the automining deployment, after the tokens
 * (and, on LayerZero devnets, after LayerZero's contracts). If no such block is found (or blocks are not kept),
 * scans start at 0: slower, never wrong.
 */
export async function restoredDeploymentBlock(
  publicClient: PublicClient,
  deployer: Address,
  nonce: number,
): Promise<bigint> {
  try {
    const head = await publicClient.getBlockNumber();
    for (let n = BigInt(nonce) + 1n; n <= head && n <= BigInt(nonce + MAX_BLOCKS_BEFORE_FERRY); n++) {
      const block = await publicClient.getBlock({ blockNumber: n, includeTransactions: true });
      const creates = block.transactions.some(
        (tx) => tx.from.toLowerCase() === deployer.toLowerCase() && tx.nonce === nonce && tx.to === null,
      );
      if (creates) return n;
    }
  } catch {
    // fall through: scan from 0
  }
  return 0n;
}

export async function assertAttester(publicClient: PublicClient, messenger: Address, attester: Address) {
  const onChain = (await publicClient.readContract({
    address: messenger,
    abi: loadArtifact('AttesterMessenger').abi,
    functionName: 'attester',
  })) as Address;
  if (onChain.toLowerCase() !== attester.toLowerCase()) {
    throw new ChainError(`devnet messenger ${messenger} trusts attester ${onChain}, expected ${attester}`);
  }
}

/** A state file from before the LayerZero contracts holds an escrow the worker cannot use. */
export async function assertEscrowSettler(publicClient: PublicClient, escrow: Address, settler: Address) {
  let onChain: Address;
  try {
    onChain = (await publicClient.readContract({
      address: escrow,
      abi: loadArtifact('FerryEscrow').abi,
      functionName: 'settler',
    })) as Address;
  } catch (cause) {
    throw new ChainError(
      `devnet escrow ${escrow} predates the current contracts; delete the devnet state file`,
      {
        cause,
      },
    );
  }
  if (onChain.toLowerCase() !== settler.toLowerCase()) {
    throw new ChainError(
      `devnet escrow ${escrow} is settled by ${onChain}, expected ${settler}; delete the devnet state file`,
    );
  }
  // An escrow whose settleFills takes another proof format (an older compact or full-order one) would skip or
  // refuse every message the current app sends: its dispatcher must hold the current selector.
  const code = (await publicClient.getCode({ address: escrow })) ?? '0x';
  const selector = settleFillsSelector().slice(2);
  if (!code.toLowerCase().includes(`63${selector}`)) {
    throw new ChainError(
      `devnet escrow ${escrow} predates the current settleFills(${selector}); delete the devnet state file`,
    );
  }
}

function settleFillsSelector() {
  const item = loadArtifact('FerryEscrow').abi.find(
    (i): i is AbiFunction => i.type === 'function' && i.name === 'settleFills',
  );
  if (!item) throw new ChainError('FerryEscrow artifact has no settleFills');
  return toFunctionSelector(item);
}
