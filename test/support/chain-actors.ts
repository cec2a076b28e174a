import { createPublicClient, createWalletClient, erc20Abi, type Hex, http } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import type { Harness } from './harness.ts';

const fillAbi = loadArtifact('FerryFill').abi;

function clients(h: Harness, chainName: string, account?: PrivateKeyAccount) {
  const chain = h.registry.chain(chainName);
  if (!chain) throw new Error(`no chain ${chainName}`);
  // The other parties talk to the devnet itself, even when Ferry's registry sends Ferry through a fault proxy.
  const rpcUrl = h.devnets.chains.find((c) => c.name === chainName)?.rpcUrl ?? chain.rpcUrl;
  const viemChain = {
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  };
  return {
    chain,
    public: createPublicClient({ chain: viemChain, transport: http(rpcUrl) }),
    wallet: account ? createWalletClient({ account, chain: viemChain, transport: http(rpcUrl) }) : null,
  };
}

export async function balanceOf(h: Harness, chainName: string, token: Hex, owner: Hex): Promise<bigint> {
  return clients(h, chainName).public.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

async function erc20Write(
  h: Harness,
  chainName: string,
  token: Hex,
  owner: PrivateKeyAccount,
  call: { functionName: 'approve' | 'transfer'; args: readonly [Hex, bigint] },
) {
  const c = clients(h, chainName, owner);
  const hash = await c.wallet!.writeContract({ address: token, abi: erc20Abi, ...call });
  await c.public.waitForTransactionReceipt({ hash });
}

/** The offerer lets the escrow pull its input (what a money mover does once per token). */
export async function approveEscrow(
  h: Harness,
  chainName: string,
  token: Hex,
  owner: PrivateKeyAccount,
  amount: bigint,
) {
  const escrow = clients(h, chainName).chain.contracts.escrow;
  await erc20Write(h, chainName, token, owner, { functionName: 'approve', args: [escrow, amount] });
}

export async function fillOrder(
  h: Harness,
  lp: PrivateKeyAccount,
  order: { chain: string; orderHash: Hex; token: Hex; amount: bigint; recipient: Hex; fillDeadline: bigint },
): Promise<Hex> {
  const c = clients(h, order.chain, lp);
  const approve = await c.wallet!.writeContract({
    address: order.token,
    abi: erc20Abi,
    functionName: 'approve',
    args: [c.chain.contracts.fill, order.amount],
  });
  await c.public.waitForTransactionReceipt({ hash: approve });
  const hash = await c.wallet!.writeContract({
    address: c.chain.contracts.fill,
    abi: fillAbi,
    functionName: 'fill',
    args: [order.orderHash, order.token, order.amount, order.recipient, order.fillDeadline],
  });
  await c.public.waitForTransactionReceipt({ hash });
  return hash;
}

/** Moves a devnet's clock forward (anvil time travel) and mines a block at the new time. */
export async function increaseChainTime(h: Harness, chainName: string, seconds: number): Promise<void> {
  const c = clients(h, chainName);
  await c.public.request({ method: 'evm_increaseTime' as never, params: [seconds] as never });
  await c.public.request({ method: 'evm_mine' as never, params: [] as never });
}

/** The offerer takes its input back itself (refund is permissionless after the fill deadline). */
export async function refundAsOfferer(h: Harness, orderHash: Hex): Promise<void> {
  const c = clients(h, h.chainA, h.offerer);
  const hash = await c.wallet!.writeContract({
    address: c.chain.contracts.escrow,
    abi: loadArtifact('FerryEscrow').abi,
    functionName: 'refund',
    args: [orderHash],
  });
  await c.public.waitForTransactionReceipt({ hash });
}

/** Moves tokens between wallets (to change a balance the API checks). */
export async function transferToken(
  h: Harness,
  chainName: string,
  token: Hex,
  from: PrivateKeyAccount,
  to: Hex,
  amount: bigint,
) {
  await erc20Write(h, chainName, token, from, { functionName: 'transfer', args: [to, amount] });
}

/** Mines `blocks` empty blocks on a devnet at once. */
export async function mineBlocks(h: Harness, chainName: string, blocks: number): Promise<void> {
  const c = clients(h, chainName);
  await c.public.request({ method: 'anvil_mine' as never, params: [`0x${blocks.toString(16)}`] as never });
}

/**
 * Replaces the newest `depth` blocks of a devnet with as many empty ones (anvil_reorg with no transactions to
 * re-include): whatever those blocks held leaves the chain, and its transactions do not return to the mempool.
 */
export async function reorgChain(h: Harness, chainName: string, depth: number): Promise<void> {
  const c = clients(h, chainName);
  await c.public.request({ method: 'anvil_reorg' as never, params: [depth, []] as never });
}

/** The block number of a mined transaction, or null when no canonical block holds it. */
export async function minedIn(h: Harness, chainName: string, hash: Hex): Promise<bigint | null> {
  try {
    return (await clients(h, chainName).public.getTransactionReceipt({ hash })).blockNumber;
  } catch {
    return null;
  }
}
