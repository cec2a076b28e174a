import {
  type Abi,
  ContractFunctionRevertedError,
  decodeErrorResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  type PublicClient,
  parseSignature,
} from 'viem';
import type { Address } from '../../domain/address.ts';
import { walkCauses } from '../../domain/cause-walk.ts';
import type { ChainFill } from '../../domain/chain-fill.ts';
import { type EscrowStatus, escrowStatusOf } from '../../domain/escrow-status.ts';
import { FerryError } from '../../domain/ferry-error.ts';
import type { OrderTerms } from '../../domain/order-typed-data.ts';
import type { SwapPermit } from '../../domain/swap-permit.ts';
import { type Chain, type ChainRegistry, registryChain, registryError } from '../chain-registry.ts';
import { loadArtifact } from '../contract-artifacts.ts';
import { lzErrorAbi } from '../layerzero/lz-artifacts.ts';
import { sendingFees } from '../transactions/tx-sender.ts';
import { publicClientsFor, type RpcErrorCounter } from '../viem-client.ts';
import type { ContractCall } from './contract-call.ts';
import { createProofMessageChain, type ProofMessageChain } from './proof-message-chain.ts';

const escrowAbi = loadArtifact('FerryEscrow').abi;
const messengerAbi = loadArtifact('AttesterMessenger').abi;
const appAbi = loadArtifact('FerryApp').abi;

export interface FillRecord {
  readonly txHash: Hex;
  readonly filler: Address;
  readonly recipient: Address;
  readonly token: Address;
  readonly amount: bigint;
  readonly blockNumber: bigint;
  readonly blockTimestamp: number;
}

/** The block at a chain's confirmations depth (the latest when confirmations is 1), and the head's number. */
export interface SettledBlock {
  readonly head: bigint;
  readonly number: bigint;
  readonly timestamp: bigint;
}

/** Looks a fill up in the fill index (the store's `findChainFill`, bound to a database). */
export type FillLookup = (chain: string, orderHash: Hex) => Promise<ChainFill | null>;

/**
 * Thrown when a call would revert; `reason` is the contract's error name, readable by people. Not retryable: the
 * same call against the same state reverts again.
 */
export class RevertError extends FerryError {
  override readonly name = 'RevertError';
  constructor(readonly reason: string) {
    super(reason, { retryable: false });
  }
}

function revertReason(error: unknown): string | null {
  const reverted = walkCauses(error, (e) => e instanceof ContractFunctionRevertedError);
  return reverted ? (reverted.data?.errorName ?? reverted.reason ?? reverted.shortMessage) : null;
}

/** The settlement's chain reads and the calls it sends: escrow, messenger and token state, blocks and fills. */
export interface SettlementChain extends ProofMessageChain {
  depositCall(chain: string, order: OrderTerms, signature: Hex): ContractCall;
  /** The deposit that first spends the offerer's EIP-2612 permit (no approve needed). */
  depositWithPermitCall(chain: string, order: OrderTerms, signature: Hex, permit: SwapPermit): ContractCall;
  /** FerryEscrow.refund(order): permissionless once the fill deadline and the settle grace have passed. */
  refundCall(chain: string, order: OrderTerms): ContractCall;
  /** AttesterMessenger.relayFill with the attester's signature over the fill by `filler` at `fillTime`. */
  relayFillCall(
    chain: string,
    order: OrderTerms,
    filler: Address,
    fillTime: bigint,
    attestation: Hex,
  ): ContractCall;
  /**
   * Runs the call against the latest state as the transaction will run (from `from`, at the fees it would be sent
   * with now); throws RevertError with the contract's reason if it would revert
   * (named from the escrow's, messenger's, FerryApp's, tokens' and LayerZero's errors).
   * Any other failure (timeout, node down) is rethrown as is: a transient outage must never fail an order.
   */
  simulate(call: ContractCall, from: Address): Promise<void>;
  /** The escrow's `settler()`: the only address that can release its deposits to fillers. */
  escrowSettler(chain: string): Promise<Address>;
  /** The latest block's timestamp, in seconds: the clock the contracts judge deadlines by. */
  chainTime(chain: string): Promise<number>;
  /** The escrow's record of the order, at `blockNumber` (default: the latest block). */
  escrowStatus(chain: string, orderHash: Hex, blockNumber?: bigint): Promise<EscrowStatus>;
  /** The newest block buried under the chain's confirmations: facts read there are final for Ferry. */
  settledBlock(chain: string): Promise<SettledBlock>;
  /** The timestamp of block `blockNumber`. */
  blockTimestamp(chain: string, blockNumber: bigint): Promise<bigint>;
  /** The address the chain's messenger trusts to sign fill attestations; null when the chain has no messenger. */
  messengerAttester(chain: string): Promise<Address | null>;
  /** The native-coin balance of `address` (what pays its gas), in wei. */
  nativeBalance(chain: string, address: Address): Promise<bigint>;
  /** The escrow's settle grace in seconds (immutable, so read once per chain). */
  settleGrace(chain: string): Promise<bigint>;
  /** `owner`'s balance of `token` and what it allows the chain's escrow to take. */
  balanceAndAllowance(
    chain: string,
    token: Address,
    owner: Address,
  ): Promise<{ balance: bigint; allowance: bigint }>;
  /**
   * The designated filler's fill of `orderHash` on the output chain, or null. Answered from the fill index
   * (bounded log scans that only ever read blocks at the chain's confirmations depth), so a fill that a reorg
   * can still remove is never returned, and no lookup scans the chain.
   */
  findFill(chain: string, orderHash: Hex): Promise<FillRecord | null>;
  /**
   * Whether the fill contract on `chain` records a fill of `orderHash` at the latest block: one the fill index,
   * waiting for confirmations, does not show yet.
   */
  filledAtLatest(chain: string, orderHash: Hex): Promise<boolean>;
}

/** The escrow's and messenger's calls the worker sends, encoded for the chain's contracts. */
function contractCalls(
  contracts: (chain: string) => Chain['contracts'],
): Pick<SettlementChain, 'depositCall' | 'depositWithPermitCall' | 'refundCall' | 'relayFillCall'> {
  return {
    depositCall(chain: string, order: OrderTerms, signature: Hex): ContractCall {
      return {
        chain,
        to: contracts(chain).escrow,
        data: encodeFunctionData({ abi: escrowAbi, functionName: 'deposit', args: [order, signature] }),
      };
    },
    depositWithPermitCall(
      chain: string,
      order: OrderTerms,
      signature: Hex,
      permit: SwapPermit,
    ): ContractCall {
      const { r, s, v, yParity } = parseSignature(permit.signature);
      const args = [order, signature, permit.deadline, Number(v ?? 27n + BigInt(yParity)), r, s] as const;
      return {
        chain,
        to: contracts(chain).escrow,
        data: encodeFunctionData({ abi: escrowAbi, functionName: 'depositWithPermit', args }),
      };
    },
    refundCall(chain: string, order: OrderTerms): ContractCall {
      return {
        chain,
        to: contracts(chain).escrow,
        data: encodeFunctionData({ abi: escrowAbi, functionName: 'refund', args: [order] }),
      };
    },
    relayFillCall(
      chain: string,
      order: OrderTerms,
      filler: Address,
      fillTime: bigint,
      attestation: Hex,
    ): ContractCall {
      const { messenger, escrow } = contracts(chain);
      if (!messenger) throw registryError(`chain ${chain} has no messenger contract`);
      return {
        chain,
        to: messenger,
        data: encodeFunctionData({
          abi: messengerAbi,
          functionName: 'relayFill',
          args: [escrow, order, filler, fillTime, attestation],
        }),
      };
    },
  };
}

/**
 * What the settlement worker reads from chains, the calls it makes and their simulation. Its transactions
 * are signed, sent and replaced by the transaction client (transaction-client.ts).
 */
export function createSettlementChain({
  registry,
  fills,
  rpcErrors,
}: {
  registry: ChainRegistry;
  fills: FillLookup;
  rpcErrors?: RpcErrorCounter;
}): SettlementChain {
  const client = publicClientsFor(registry, 10_000, rpcErrors);
  const graces = new Map<string, Promise<bigint>>();
  const contracts = (name: string) => {
    const chain = registry.chain(name);
    if (!chain) throw registryError(`chain ${name} is not in the registry`);
    return chain.contracts;
  };

  return {
    ...contractCalls(contracts),
    ...createProofMessageChain({ registry, rpcErrors }),
    ...roleReads(client, contracts),

    async simulate(call: ContractCall, from: Address): Promise<void> {
      try {
        const c = client(call.chain);
        const fees = await sendingFees(c, registryChain(registry, call.chain).maxFeePerGas);
        await c.call({ account: from, to: call.to, data: call.data, value: call.value, ...fees });
      } catch (error) {
        const data = (error as { data?: Hex }).data ?? walkData(error);
        const decoded = data ? decodeRevert(data) : null;
        const reason = decoded ?? revertReason(error);
        if (reason) throw new RevertError(reason);
        if (/execution reverted|revert/i.test((error as Error).message ?? ''))
          throw new RevertError('reverted');
        throw error;
      }
    },

    async chainTime(chain: string): Promise<number> {
      const block = await client(chain).getBlock({ blockTag: 'latest' });
      return Number(block.timestamp);
    },

    async escrowStatus(chain: string, orderHash: Hex, blockNumber?: bigint): Promise<EscrowStatus> {
      const status = await client(chain).readContract({
        address: contracts(chain).escrow,
        abi: escrowAbi,
        functionName: 'orderStatus',
        args: [orderHash],
        ...(blockNumber === undefined ? {} : { blockNumber }),
      });
      return escrowStatusOf(status as bigint);
    },

    async settledBlock(chain: string): Promise<SettledBlock> {
      const c = client(chain);
      const depth = BigInt(Math.max(1, registry.chain(chain)?.confirmations ?? 1));
      const latest = await c.getBlock({ blockTag: 'latest' });
      if (depth === 1n || latest.number < depth) {
        return { head: latest.number, number: latest.number, timestamp: latest.timestamp };
      }
      const settled = await c.getBlock({ blockNumber: latest.number + 1n - depth });
      return { head: latest.number, number: settled.number, timestamp: settled.timestamp };
    },

    filledAtLatest: async (chain, orderHash) =>
      (await fillTimeAt(client(chain), contracts(chain).fill, orderHash)) !== 0n,

    async blockTimestamp(chain: string, blockNumber: bigint): Promise<bigint> {
      return (await client(chain).getBlock({ blockNumber })).timestamp;
    },

    nativeBalance(chain: string, address: Address): Promise<bigint> {
      return client(chain).getBalance({ address });
    },

    settleGrace(chain: string): Promise<bigint> {
      let grace = graces.get(chain);
      if (!grace) {
        grace = client(chain).readContract({
          address: contracts(chain).escrow,
          abi: escrowAbi,
          functionName: 'settleGrace',
        }) as Promise<bigint>;
        grace.catch(() => graces.delete(chain));
        graces.set(chain, grace);
      }
      return grace;
    },

    async balanceAndAllowance(chain: string, token: Address, owner: Address) {
      const c = client(chain);
      const spender = contracts(chain).escrow;
      const [balance, allowance] = await Promise.all([
        c.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
        c.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] }),
      ]);
      return { balance, allowance };
    },

    async findFill(chain: string, orderHash: Hex): Promise<FillRecord | null> {
      const fill = await fills(chain, orderHash);
      if (!fill) return null;
      return {
        txHash: fill.txHash,
        filler: getAddress(fill.filler),
        recipient: fill.recipient,
        token: fill.token,
        amount: fill.amount,
        blockNumber: fill.blockNumber,
        blockTimestamp: fill.blockTimestamp,
      };
    },
  };
}

/** FerryFill's record of `orderHash`'s fill time at the latest block (0 while unfilled). */
function fillTimeAt(c: PublicClient, fill: Address, orderHash: Hex): Promise<bigint> {
  return c.readContract({
    address: fill,
    abi: appAbi,
    functionName: 'fillTimes',
    args: [orderHash],
  }) as Promise<bigint>;
}

/** The revert data a node answered with, on the error or one of its causes. */
function walkData(error: unknown): Hex | undefined {
  const withData = walkCauses(error, (e) => {
    const data = (e as { data?: unknown }).data;
    return typeof data === 'string' && data.startsWith('0x');
  });
  return (withData as { data?: Hex } | null)?.data;
}

const tokenAbi = loadArtifact('TestStablecoin').abi;

/**
 * Names the custom error in revert data: Ferry's contracts bubble each other's reverts (the messenger and FerryApp
 * call the escrow, the escrow calls the token, the endpoint calls FerryApp), so every ABI a revert can come from
 * is tried, LayerZero's own errors last.
 */
export function decodeRevert(data: Hex): string | null {
  for (const candidate of [escrowAbi, messengerAbi, appAbi, tokenAbi, lzErrorAbi()] as Abi[]) {
    try {
      const decoded = decodeErrorResult({ abi: candidate, data });
      const args = decoded.args?.length ? `(${decoded.args.map(String).join(', ')})` : '';
      return `${decoded.errorName}${args}`;
    } catch {}
  }
  return null;
}

/** Who may act on the escrow: its settler, and the attester a messenger trusts. */
function roleReads(
  client: ReturnType<typeof publicClientsFor>,
  contracts: (chain: string) => Chain['contracts'],
): Pick<SettlementChain, 'messengerAttester' | 'escrowSettler'> {
  return {
    async messengerAttester(chain: string): Promise<Address | null> {
      const { messenger } = contracts(chain);
      if (!messenger) return null;
      const attester = await client(chain).readContract({
        address: messenger,
        abi: messengerAbi,
        functionName: 'attester',
      });
      return getAddress(attester as string);
    },

    async escrowSettler(chain: string): Promise<Address> {
      const settler = await client(chain).readContract({
        address: contracts(chain).escrow,
        abi: escrowAbi,
        functionName: 'settler',
      });
      return getAddress(settler as string);
    },
  };
}
