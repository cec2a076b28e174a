import { randomBytes } from 'node:crypto';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { erc7683Abi, type FerryOrder, onchainOrder } from '../../sdk/src/filling.ts';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { proveOptions } from '../../src/chains/settlement/prove-options.ts';
import { type OrderTerms, type OrderTypedData, orderTermsFrom } from '../../src/domain/order-typed-data.ts';
import type { Harness } from './harness.ts';

const appAbi = loadArtifact('FerryApp').abi;

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
  // Receipts are asked for every 100 ms (viem's default is 4 s): on 1-second blocks each wait ends soon after its block.
  const pollingInterval = 100;
  return {
    chain,
    public: createPublicClient({ chain: viemChain, transport: http(rpcUrl), pollingInterval }),
    wallet: account
      ? createWalletClient({ account, chain: viemChain, transport: http(rpcUrl), pollingInterval })
      : null,
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

/** `owner` sets its allowance of `spender` on `token` (e.g. back to zero). */
export async function approveSpender(
  h: Harness,
  chainName: string,
  token: Hex,
  owner: PrivateKeyAccount,
  spender: Hex,
  amount: bigint,
) {
  await erc20Write(h, chainName, token, owner, { functionName: 'approve', args: [spender, amount] });
}

/**
 * The LP fills `order` on its output chain `chain` (approving the fill contract for it first). By default it does
 * what the reference bot does: on an order whose input chain settles through LayerZero, FerryApp's fillAndProve
 * paying the quoted fee, else the plain fill; `prove: false` fills without a proof (the worker's fallback proves it).
 */
export async function fillOrder(
  h: Harness,
  lp: PrivateKeyAccount,
  fill: { chain: string; order: OrderTerms; escrow: Hex; prove?: boolean },
): Promise<Hex> {
  const { order, escrow } = fill;
  const c = clients(h, fill.chain, lp);
  const app = c.chain.contracts.fill;
  const approve = await c.wallet!.writeContract({
    address: order.outputToken,
    abi: erc20Abi,
    functionName: 'approve',
    args: [app, order.outputAmount],
  });
  await c.public.waitForTransactionReceipt({ hash: approve });
  const input = h.registry.chains.find((chain) => BigInt(chain.chainId) === order.inputChainId);
  const proving = fill.prove ?? input?.settlement.method === 'layerzero';
  let hash: Hex;
  if (proving) {
    const options = proveOptions(1);
    const fee = await quoteProve(c.public, app, order, escrow, options);
    hash = await c.wallet!.writeContract({
      address: app,
      abi: appAbi,
      functionName: 'fillAndProve',
      args: [order, escrow, options],
      value: fee,
    });
  } else {
    hash = await c.wallet!.writeContract({
      address: app,
      abi: appAbi,
      functionName: 'fill',
      args: [order, escrow],
    });
  }
  await c.public.waitForTransactionReceipt({ hash });
  return hash;
}

function quoteProve(
  client: ReturnType<typeof clients>['public'],
  app: Hex,
  order: OrderTerms,
  escrow: Hex,
  options: Hex,
): Promise<bigint> {
  return client.readContract({
    address: app,
    abi: appAbi,
    functionName: 'quoteProve',
    args: [[order], escrow, options],
  }) as Promise<bigint>;
}

/** Anyone's FerryApp.prove of a filled swap (permissionless): one more proof message on the route. */
export async function proveSwap(
  h: Harness,
  sender: PrivateKeyAccount,
  swap: { typedData: OrderTypedData },
): Promise<Hex> {
  const order = orderTermsFrom(swap.typedData);
  const escrow = swap.typedData.domain.verifyingContract;
  const c = clients(h, h.chainB, sender);
  const app = c.chain.contracts.fill;
  const options = proveOptions(1);
  const hash = await c.wallet!.writeContract({
    address: app,
    abi: appAbi,
    functionName: 'prove',
    args: [[order], escrow, options],
    value: await quoteProve(c.public, app, order, escrow, options),
  });
  await c.public.waitForTransactionReceipt({ hash });
  return hash;
}

/**
 * The LP fills a swap made by the fixtures (its typed data: on chain B to the other wallet, by its deadline).
 * `amount`, when given, must be the order's outputAmount: the fill pays exactly what the order says.
 */
export function fillSwap(
  h: Harness,
  lp: PrivateKeyAccount,
  swap: { typedData: OrderTypedData },
  amount?: bigint,
  options: { prove?: boolean } = {},
): Promise<Hex> {
  const order = orderTermsFrom(swap.typedData);
  if (amount !== undefined && amount !== order.outputAmount)
    throw new Error(`fillSwap: the order pays ${order.outputAmount}, not ${amount}`);
  return fillOrder(h, lp, {
    chain: h.chainB,
    order,
    escrow: swap.typedData.domain.verifyingContract,
    ...options,
  });
}

/** The order hashes a transaction on `chainName` proved: FerryApp's ProofSent events in its receipt. */
export async function provenIn(h: Harness, chainName: string, txHash: Hex): Promise<Hex[]> {
  const receipt = await clients(h, chainName).public.getTransactionReceipt({ hash: txHash });
  const sent = parseEventLogs({ abi: appAbi, eventName: 'ProofSent', logs: receipt.logs });
  return sent.flatMap((log) => [...((log.args as { orderHashes: readonly Hex[] }).orderHashes ?? [])]);
}

/** Moves a devnet's clock forward (anvil time travel) and mines a block at the new time. */
export async function increaseChainTime(h: Harness, chainName: string, seconds: number): Promise<void> {
  const c = clients(h, chainName);
  await c.public.request({ method: 'evm_increaseTime' as never, params: [seconds] as never });
  await c.public.request({ method: 'evm_mine' as never, params: [] as never });
}

/** Mines one block on a devnet at exactly `timestamp` (unix seconds; must be after the latest block's). */
export async function setChainTime(h: Harness, chainName: string, timestamp: bigint): Promise<void> {
  const c = clients(h, chainName);
  await c.public.request({
    method: 'evm_setNextBlockTimestamp' as never,
    params: [Number(timestamp)] as never,
  });
  await c.public.request({ method: 'evm_mine' as never, params: [] as never });
}

/** The timestamp of a devnet's latest block. */
export async function chainTime(h: Harness, chainName: string): Promise<bigint> {
  return (await clients(h, chainName).public.getBlock({ blockTag: 'latest' })).timestamp;
}

/**
 * Calls the escrow as `caller` (the offerer by default) and waits for the receipt; a revert throws with the
 * contract's error name in the message.
 */
async function escrowWrite(
  h: Harness,
  caller: PrivateKeyAccount,
  call:
    | { functionName: 'refund'; args: readonly [unknown] }
    | { functionName: 'deposit'; args: readonly [unknown, Hex] },
): Promise<Hex> {
  const c = clients(h, h.chainA, caller);
  const hash = await c.wallet!.writeContract({
    address: c.chain.contracts.escrow,
    abi: loadArtifact('FerryEscrow').abi,
    ...(call as { functionName: string; args: readonly unknown[] }),
  } as never);
  const receipt = await c.public.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`${call.functionName} ${hash} reverted`);
  return hash;
}

/** The offerer (or `caller`) takes the input back itself: refund(order) is permissionless once it opens. */
export async function refundAsOfferer(
  h: Harness,
  swap: { typedData: OrderTypedData },
  caller = h.offerer,
): Promise<Hex> {
  return escrowWrite(h, caller, { functionName: 'refund', args: [orderTermsFrom(swap.typedData)] });
}

/** Anyone holding the offerer's signature may open the order in the escrow (what Ferry's worker does). */
export async function depositAs(
  h: Harness,
  caller: PrivateKeyAccount,
  typedData: OrderTypedData,
  signature: Hex,
): Promise<Hex> {
  return escrowWrite(h, caller, { functionName: 'deposit', args: [orderTermsFrom(typedData), signature] });
}

/**
 * A wallet opens its own order on the input chain's escrow with ERC-7683 `open` (no signature, no API), built with
 * the SDK's `onchainOrder`; the caller must be the offerer and have approved the input. The opening transaction.
 */
export async function openOnChain(h: Harness, caller: PrivateKeyAccount, order: FerryOrder): Promise<Hex> {
  const c = clients(h, h.chainA, caller);
  const hash = await c.wallet!.writeContract({
    address: c.chain.contracts.escrow,
    abi: erc7683Abi,
    functionName: 'open',
    args: [onchainOrder(order)],
  });
  const receipt = await c.public.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`open ${hash} reverted`);
  return hash;
}

/**
 * An order as a wallet opening it on chain states it: Ferry's 14 fields from chain A to chain B, the devnet
 * offerer paying `input` for `output` to the other wallet, no exclusive filler, the escrow's fee, deadlines from
 * the chains' own clocks.
 */
export async function onchainOrderTerms(h: Harness, input: bigint, output: bigint): Promise<FerryOrder> {
  const [inputNow, outputNow] = [await chainTime(h, h.chainA), await chainTime(h, h.chainB)];
  return {
    offerer: h.offerer.address,
    recipient: h.otherWallet.address,
    inputToken: h.usdcA,
    outputToken: h.usdcB,
    inputAmount: input,
    outputAmount: output,
    inputChainId: BigInt(h.registry.chain(h.chainA)!.chainId),
    outputChainId: BigInt(h.registry.chain(h.chainB)!.chainId),
    filler: zeroAddress,
    nonce: BigInt(`0x${randomBytes(16).toString('hex')}`),
    openDeadline: inputNow + 600n,
    fillDeadline: BigInt(Math.max(Number(inputNow), Number(outputNow))) + 1800n, // the later clock
    protocolFee: (input * BigInt(h.config.protocolFeeBps)) / 10_000n,
    exclusivityDeadline: 0n,
  };
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

/**
 * Ferry's clock (the harness's manual clock) catches up with the devnets after a test moved their time
 * forward, so the deadlines of new orders lie ahead of both chains again.
 */
export async function catchUpClock(h: Harness): Promise<void> {
  const latest = Math.max(Number(await chainTime(h, h.chainA)), Number(await chainTime(h, h.chainB)));
  const behind = latest - Math.floor(h.clock.now().getTime() / 1000);
  if (behind > 0) h.clock.advance(behind + 1);
}

/** Runs `n` passes of the in-process worker (stopped by the caller), each after the orders are due again. */
export async function workerPasses(h: Harness, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await new Promise((resolve) => setTimeout(resolve, h.config.worker.pollMs * 2));
    await h.app.worker!.runOnce();
  }
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
