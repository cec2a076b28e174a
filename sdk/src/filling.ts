import {
  type Address,
  concat,
  encodeAbiParameters,
  type Hex,
  hashTypedData,
  keccak256,
  numberToHex,
  type PublicClient,
  parseAbi,
  parseAbiParameters,
  type TypedDataDefinition,
  toBytes,
} from 'viem';
import type { ChainInfo, OrderTypedData } from './types.js';

/**
 * What a filler needs on chain, without Ferry's private API: the signed order as the contracts take it, the calls
 * that fill (and prove) it, and the ERC-7683 shapes a generic filler or a wallet speaks.
 */

/** Ferry's `Order` as the contracts take it: the typed data's message with every uint256 as a bigint. */
export interface FerryOrder {
  readonly offerer: Address;
  readonly recipient: Address;
  readonly inputToken: Address;
  readonly outputToken: Address;
  readonly inputAmount: bigint;
  readonly outputAmount: bigint;
  readonly inputChainId: bigint;
  readonly outputChainId: bigint;
  readonly filler: Address;
  readonly nonce: bigint;
  readonly openDeadline: bigint;
  readonly fillDeadline: bigint;
  readonly protocolFee: bigint;
  readonly exclusivityDeadline: bigint;
}

const ORDER_FIELDS =
  'address offerer, address recipient, address inputToken, address outputToken, uint256 inputAmount, ' +
  'uint256 outputAmount, uint256 inputChainId, uint256 outputChainId, address filler, uint256 nonce, ' +
  'uint256 openDeadline, uint256 fillDeadline, uint256 protocolFee, uint256 exclusivityDeadline';
const ORDER_STRUCT = `struct Order { ${ORDER_FIELDS.replaceAll(', ', '; ')}; }`;

/** The EIP-712 type hash of Ferry's Order: ERC-7683's `orderDataType` for Ferry's escrows. */
export const ORDER_DATA_TYPE: Hex = keccak256(toBytes(`Order(${ORDER_FIELDS.replaceAll(', ', ',')})`));

/** Ferry's fill contract on an output chain (FerryApp; FerryFill alone on attester routes). */
export const ferryFillAbi = parseAbi([
  ORDER_STRUCT,
  'function fill(Order order, address escrow) returns (bytes32)',
  'function fillAndProve(Order order, address escrow, bytes options) payable returns (bytes32)',
  'function prove(Order[] orders, address escrow, bytes options) payable returns (bytes32)',
  'function quoteProve(Order[] orders, address escrow, bytes options) view returns (uint256)',
  'function fillerOf(bytes32 orderHash) view returns (address)',
  'function fillTimes(bytes32 orderHash) view returns (uint256)',
]);

/** ERC-7683 as the standard defines it: the origin settler (Ferry's escrow) and the destination settler (FerryApp). */
export const erc7683Abi = parseAbi([
  'struct Output { bytes32 token; uint256 amount; bytes32 recipient; uint256 chainId; }',
  'struct FillInstruction { uint256 destinationChainId; bytes32 destinationSettler; bytes originData; }',
  'struct ResolvedCrossChainOrder { address user; uint256 originChainId; uint32 openDeadline; uint32 fillDeadline; bytes32 orderId; Output[] maxSpent; Output[] minReceived; FillInstruction[] fillInstructions; }',
  'struct OnchainCrossChainOrder { uint32 fillDeadline; bytes32 orderDataType; bytes orderData; }',
  'event Open(bytes32 indexed orderId, ResolvedCrossChainOrder resolvedOrder)',
  'function open(OnchainCrossChainOrder order) payable',
  'function resolve(OnchainCrossChainOrder order) view returns (ResolvedCrossChainOrder)',
  'function fill(bytes32 orderId, bytes originData, bytes fillerData) payable',
]);

const erc20ApproveAbi = parseAbi(['function approve(address spender, uint256 amount) returns (bool)']);
const escrowStatusAbi = parseAbi(['function orderStatus(bytes32 orderHash) view returns (uint8)']);

/** The order of a quote's or an open order's typed data, and the escrow it was signed for. */
export function signedOrder(typedData: OrderTypedData): { order: FerryOrder; escrow: Address } {
  const m = typedData.message as Record<string, string>;
  const big = (key: string) => BigInt(m[key] as string);
  const order: FerryOrder = {
    offerer: m.offerer as Address,
    recipient: m.recipient as Address,
    inputToken: m.inputToken as Address,
    outputToken: m.outputToken as Address,
    inputAmount: big('inputAmount'),
    outputAmount: big('outputAmount'),
    inputChainId: big('inputChainId'),
    outputChainId: big('outputChainId'),
    filler: m.filler as Address,
    nonce: big('nonce'),
    openDeadline: big('openDeadline'),
    fillDeadline: big('fillDeadline'),
    protocolFee: big('protocolFee'),
    exclusivityDeadline: big('exclusivityDeadline'),
  };
  return { order, escrow: typedData.domain.verifyingContract as Address };
}

/**
 * LayerZero type-3 options asking the executor for the gas that delivering a proof of `proofs` fills takes on the
 * input chain (what Ferry's worker and reference bot ask: 150,000 + 15,000 per fill).
 */
export function proveOptions(proofs = 1): Hex {
  const gas = 150_000n + 15_000n * BigInt(proofs);
  return concat(['0x0003', '0x01', '0x0011', '0x01', numberToHex(gas, { size: 16 })]);
}

/** ERC-7683's `open` argument for a wallet opening its own Ferry order on chain (`order.offerer` must be the caller). */
export function onchainOrder(order: FerryOrder) {
  const orderData = encodeAbiParameters(parseAbiParameters(`(${ORDER_FIELDS})`), [order]);
  return { fillDeadline: Number(order.fillDeadline), orderDataType: ORDER_DATA_TYPE, orderData };
}

/** A contract call as viem's writeContract takes it. */
export interface PreparedCall {
  readonly address: Address;
  readonly abi: typeof ferryFillAbi | typeof erc20ApproveAbi;
  readonly functionName: string;
  readonly args: readonly unknown[];
  readonly value?: bigint;
}

/** The escrow does not hold the order Active (not deposited yet, or settled, or refunded): a fill would not be paid. */
export class NotFillableError extends Error {
  override readonly name = 'NotFillableError';
  constructor(
    readonly orderHash: Hex,
    readonly escrowStatus: number,
  ) {
    super(
      `the escrow holds order ${orderHash} as ${['None', 'Active', 'Settled', 'Refunded'][escrowStatus]}`,
    );
  }
}

/**
 * The two transactions that fill an order on its output chain, for viem's `writeContract` in this order: the output
 * token's approval of the fill contract, then the fill. Where the input chain settles through LayerZero the fill
 * proves itself (`fillAndProve`, its value the messaging fee read now from `quoteProve`); on attester routes it is
 * the plain `fill`. `chains` is `ferry.public.chains()`'s list; `input` and `output` read the two chains. Throws
 * NotFillableError unless the input chain's escrow holds the order Active: a fill of an order not (or no longer)
 * deposited is never paid back. Call it just before sending, and keep a margin before `fillDeadline`.
 */
export async function prepareFill(input: {
  readonly typedData: OrderTypedData;
  readonly chains: readonly ChainInfo[];
  readonly input: Pick<PublicClient, 'readContract'>;
  readonly output: Pick<PublicClient, 'readContract'>;
}): Promise<{ approve: PreparedCall; fill: PreparedCall }> {
  const { order, escrow } = signedOrder(input.typedData);
  const chainOf = (id: bigint) => input.chains.find((c) => BigInt(c.chainId) === id);
  const [from, to] = [chainOf(order.inputChainId), chainOf(order.outputChainId)];
  if (!from || !to) throw new Error(`Ferry lists no chain ${order.inputChainId} or ${order.outputChainId}`);
  // Only Ferry's escrow on the input chain pays the fill back: typed data naming another would be filled for nothing.
  if (escrow.toLowerCase() !== from.escrow.toLowerCase() || input.typedData.domain.chainId !== from.chainId) {
    throw new Error(
      `the order was signed for escrow ${escrow} on chain ${input.typedData.domain.chainId}, not ${from.name}'s`,
    );
  }
  const orderHash = hashTypedData(input.typedData as unknown as TypedDataDefinition);
  const status = await input.input.readContract({
    address: escrow,
    abi: escrowStatusAbi,
    functionName: 'orderStatus',
    args: [orderHash],
  });
  if (status !== 1) throw new NotFillableError(orderHash, status);
  const app = to.fill as Address;
  const approve = {
    address: order.outputToken,
    abi: erc20ApproveAbi,
    functionName: 'approve',
    args: [app, order.outputAmount],
  };
  if (from.messenger !== 'layerzero') {
    return {
      approve,
      fill: { address: app, abi: ferryFillAbi, functionName: 'fill', args: [order, escrow] },
    };
  }
  const options = proveOptions(1);
  const value = await input.output.readContract({
    address: app,
    abi: ferryFillAbi,
    functionName: 'quoteProve',
    args: [[order], escrow, options],
  });
  const args = [order, escrow, options] as const;
  return { approve, fill: { address: app, abi: ferryFillAbi, functionName: 'fillAndProve', args, value } };
}
