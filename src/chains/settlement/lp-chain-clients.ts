import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type EscrowStatus, escrowStatusOf } from '../../domain/escrow-status.ts';
import type { OrderTerms } from '../../domain/order-typed-data.ts';
import { ChainError } from '../chain-error.ts';
import { DEFAULT_MAX_LOG_RANGE } from '../chain-registry.ts';
import { loadArtifact } from '../contract-artifacts.ts';
import { isLogRangeTooLarge } from '../log-range-error.ts';

// FerryApp's ABI holds FerryFill's (fill, fillTimes, Filled) and its own (fillAndProve, quoteProve).
const appAbi = loadArtifact('FerryApp').abi;
const escrowAbi = loadArtifact('FerryEscrow').abi;

/** The escrow's `orderStatus` values, in order (0 None, 1 Active, 2 Settled, 3 Refunded). */

export interface EvmChain {
  name: string;
  chainId: number;
  rpcUrl: string;
}

const RECEIPT_POLL_MS = 250;
const RECEIPT_TIMEOUT_MS = 120_000;

export interface ChainClients {
  public: PublicClient<Transport, Chain>;
  wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
}

/**
 * The clients of the LP bot and the demo (adapters of their own, with their own wallet): balances, allowances,
 * calldata of approvals and fills. They live here because RPC clients are created only in src/chains. The bot sends
 * through its transaction client; only the demo's one approval waits here, and that wait is bounded.
 */
export function chainClients(chain: EvmChain, account: PrivateKeyAccount): ChainClients {
  const viemChain = defineChain({
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  const transport = http(chain.rpcUrl, { timeout: 10_000, retryCount: 1 });
  // How often a wait for a receipt asks again (viem's default is 4 s): a fill mined in the next block is seen
  // within a quarter of a second, not a whole default interval later.
  const pollingInterval = RECEIPT_POLL_MS;
  return {
    public: createPublicClient({ chain: viemChain, transport, pollingInterval }),
    wallet: createWalletClient({ account, chain: viemChain, transport, pollingInterval }),
  };
}

export function balanceOf(c: ChainClients, token: Address, owner: Address): Promise<bigint> {
  return c.public.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}

/** Sends a transaction and waits for it; a revert is an error that names the tx. */
async function sendAndWait(c: ChainClients, what: string, send: () => Promise<Hex>): Promise<Hex> {
  const hash = await send();
  // Bounded: a transaction dropped from the mempool must not hold its caller forever.
  const receipt = await c.public.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== 'success') throw new ChainError(`${what} reverted (tx ${hash})`);
  return hash;
}

/**
 * Sets the allowance of `spender` to `approve` (by default `amount`) unless it already covers `amount`; returns
 * the tx hash when one was sent.
 */
export async function ensureAllowance(
  c: ChainClients,
  token: Address,
  spender: Address,
  amount: bigint,
  approve: bigint = amount,
): Promise<Hex | null> {
  const owner = c.wallet.account.address;
  const current = await c.public.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner, spender],
  });
  if (current >= amount) return null;
  return sendAndWait(c, `approve ${spender}`, () =>
    c.wallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: 'approve',
      args: [spender, approve],
    }),
  );
}

/** Who filled `orderHash` on this chain's fill contract (the filler of record) and when (block time); null before. */
export async function fillOf(
  c: ChainClients,
  fillContract: Address,
  orderHash: Hex,
): Promise<{ time: bigint; filler: Address } | null> {
  // Both at one block: read at two, a fill landing in between would pair its time with no filler.
  const blockNumber = await c.public.getBlockNumber();
  const read = (functionName: 'fillTimes' | 'fillerOf') =>
    c.public.readContract({
      address: fillContract,
      abi: appAbi,
      functionName,
      args: [orderHash],
      blockNumber,
    });
  const [time, filler] = await Promise.all([read('fillTimes'), read('fillerOf')]);
  return time === 0n ? null : { time: time as bigint, filler: filler as Address };
}

/**
 * The block time at which this wallet filled `orderHash` on this chain's fill contract; 0 while it has not (unfilled,
 * or filled by another filler once the order was open to any).
 */
export async function fillTimeOf(c: ChainClients, fillContract: Address, orderHash: Hex): Promise<bigint> {
  const fill = await fillOf(c, fillContract, orderHash);
  return fill && fill.filler.toLowerCase() === c.wallet.account.address.toLowerCase() ? fill.time : 0n;
}

/** The only address the input chain's escrow takes settlements from (FerryApp, or an AttesterMessenger). */
export async function escrowSettler(c: ChainClients, escrow: Address): Promise<Address> {
  return (await c.public.readContract({
    address: escrow,
    abi: escrowAbi,
    functionName: 'settler',
  })) as Address;
}

/** The native fee FerryApp asks to prove `orders` to their input chain's `escrow` (unfilled ones as if filled now). */
export async function quoteProve(
  c: ChainClients,
  app: Address,
  orders: readonly OrderTerms[],
  escrow: Address,
  options: Hex,
): Promise<bigint> {
  return (await c.public.readContract({
    address: app,
    abi: appAbi,
    functionName: 'quoteProve',
    args: [orders, escrow, options],
  })) as bigint;
}

/** What the input chain's escrow holds for `orderHash` right now. */
export async function escrowStatus(c: ChainClients, escrow: Address, orderHash: Hex): Promise<EscrowStatus> {
  const raw = await c.public.readContract({
    address: escrow,
    abi: escrowAbi,
    functionName: 'orderStatus',
    args: [orderHash],
  });
  return escrowStatusOf(raw as bigint);
}

/** The escrow's settleGrace (seconds): its refund opens at fillDeadline + settleGrace. */
export async function escrowSettleGrace(c: ChainClients, escrow: Address): Promise<bigint> {
  return (await c.public.readContract({
    address: escrow,
    abi: escrowAbi,
    functionName: 'settleGrace',
  })) as bigint;
}

/** The chain's latest block timestamp (unix seconds): the clock its contracts check deadlines against. */
export async function chainTime(c: ChainClients): Promise<bigint> {
  return (await c.public.getBlock({ blockTag: 'latest' })).timestamp;
}

/** The allowance `owner` gave `spender` on `token`. */
export function allowanceOf(c: ChainClients, token: Address, owner: Address, spender: Address) {
  return c.public.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner, spender],
  });
}

/** The calldata of `approve(spender, amount)` on an ERC-20. */
export function approveData(spender: Address, amount: bigint): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] });
}

/** The calldata of the fill contract's `fill(order, escrow)`: pays the recipient, proves nothing. */
export function fillData(order: OrderTerms, escrow: Address): Hex {
  return encodeFunctionData({ abi: appAbi, functionName: 'fill', args: [order, escrow] });
}

/** The calldata of FerryApp's `fillAndProve(order, escrow, options)`: the fill and its proof in one transaction. */
export function fillAndProveData(order: OrderTerms, escrow: Address, options: Hex): Hex {
  return encodeFunctionData({ abi: appAbi, functionName: 'fillAndProve', args: [order, escrow, options] });
}

/** The calldata of FerryApp's `prove(orders, escrow, options)`: one proof message for fills already made. */
export function proveData(orders: readonly OrderTerms[], escrow: Address, options: Hex): Hex {
  return encodeFunctionData({ abi: appAbi, functionName: 'prove', args: [orders, escrow, options] });
}

/** The block a mined transaction is in, or null when no receipt is known (dropped, or reorged away). */
export async function minedBlockOf(c: ChainClients, txHash: Hex): Promise<bigint | null> {
  const receipt = await c.public.getTransactionReceipt({ hash: txHash }).catch(() => null);
  return receipt ? receipt.blockNumber : null;
}

/**
 * The order hashes FerryApp `app` sent a proof message for (its ProofSent events) from `fromBlock` on, whoever
 * proved them (lowercase).
 */
export async function provenSince(
  c: ChainClients,
  app: Address,
  fromBlock: bigint,
  maxRange = DEFAULT_MAX_LOG_RANGE,
): Promise<Set<string>> {
  const proven = new Set<string>();
  const latest = await c.public.getBlockNumber();
  // RPCs cap eth_getLogs' span: after a long outage one call from the oldest fill would be refused every pass.
  let size = BigInt(Math.max(1, maxRange));
  for (let from = fromBlock; from <= latest; ) {
    const to = from + size - 1n < latest ? from + size - 1n : latest;
    let logs: unknown[];
    try {
      logs = await c.public.getContractEvents({
        address: app,
        abi: appAbi,
        eventName: 'ProofSent',
        fromBlock: from,
        toBlock: to,
      });
    } catch (error) {
      if (size === 1n || !isLogRangeTooLarge(error)) throw error;
      size = (size + 1n) / 2n;
      continue;
    }
    for (const log of logs as { args: { orderHashes?: readonly Hex[] } }[]) {
      for (const hash of log.args.orderHashes ?? []) proven.add(hash.toLowerCase());
    }
    from = to + 1n;
  }
  return proven;
}

/** The token's own `decimals()`. */
export async function tokenDecimals(c: ChainClients, token: Address): Promise<number> {
  return Number(await c.public.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }));
}

/** What a FerryApp says of itself: the escrow it settles, and its peer (bytes32, zero when unset) for a chain id. */
export async function appWiring(
  c: ChainClients,
  app: Address,
  peerChainIds: readonly number[],
): Promise<{ escrow: Address; peers: Map<number, Hex> }> {
  const read = (functionName: string, args: readonly unknown[] = []) =>
    c.public.readContract({ address: app, abi: appAbi, functionName, args } as never) as Promise<unknown>;
  const escrow = (await read('escrow')) as Address;
  const peers = new Map<number, Hex>();
  for (const chainId of peerChainIds) {
    const eid = Number(await read('eidOf', [BigInt(chainId)]));
    peers.set(chainId, eid === 0 ? `0x${'0'.repeat(64)}` : ((await read('peers', [eid])) as Hex));
  }
  return { escrow, peers };
}
