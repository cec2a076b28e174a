import { getAddress, type Hex } from 'viem';
import {
  hashOrderTypedData,
  type OrderTerms,
  type OrderTypedData,
  orderTermsFrom,
} from '../domain/order-typed-data.ts';
import type { ChainInfo, OrderView } from './ferry-api.ts';

/** How the input chain's escrow learns of a fill: a LayerZero proof the filler sends, or Ferry's attester. */
export type SettlementMethod = 'layerzero' | 'attester';

/** The order exactly as the offerer signed it, which the fill contract takes whole and hashes itself. */
export interface SignedOrder {
  readonly order: OrderTerms;
  /** The input chain's escrow the order was signed for (its EIP-712 verifying contract). */
  readonly escrow: Hex;
  readonly orderHash: Hex;
  /** Read from the input chain just before the fill (lp-filler.ts). */
  settlement: SettlementMethod;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The signed order of an order view (its quote's typed data), checked against what the bot was shown: it hashes to
 * the order's id, was signed for the input chain's escrow, and pays exactly the view's terms on the output chain.
 * A refusal as one sentence otherwise: the fill pays what the typed data says, so it must be what the bot checked.
 */
export function signedOrderOf(view: OrderView, input: ChainInfo, output: ChainInfo): SignedOrder | string {
  const typedData = view.quote?.typedData as OrderTypedData | undefined;
  if (!typedData) return 'the order view carries no typed data (list orders with includeQuote)';
  const orderHash = hashOrderTypedData(typedData);
  if (!same(orderHash, view.blockchainOrderId)) {
    return `the order's typed data hashes to ${orderHash}, not to its blockchainOrderId ${view.blockchainOrderId}`;
  }
  if (!same(typedData.domain.verifyingContract, input.escrow) || typedData.domain.chainId !== input.chainId) {
    return `the order was signed for escrow ${typedData.domain.verifyingContract} on chain ${typedData.domain.chainId}, not ${input.name}'s`;
  }
  const order = orderTermsFrom(typedData);
  const d = view.details;
  const matches =
    order.inputChainId === BigInt(input.chainId) &&
    order.outputChainId === BigInt(output.chainId) &&
    same(order.inputToken, d.inputToken) &&
    same(order.outputToken, d.outputToken) &&
    order.inputAmount === BigInt(d.inputAmount) &&
    order.outputAmount === BigInt(d.outputAmount) &&
    same(order.recipient, d.recipient) &&
    d.filler !== null &&
    same(order.filler, d.filler) &&
    d.fillDeadline !== null &&
    order.fillDeadline === BigInt(d.fillDeadline) &&
    // The bot decides whether it may fill yet (an open order) from the view: it must be the signed deadline.
    (d.exclusivityDeadline == null || order.exclusivityDeadline === BigInt(d.exclusivityDeadline)) &&
    order.protocolFee === BigInt(d.protocolFee);
  if (!matches) return "the order's signed terms differ from the order view";
  return {
    order,
    escrow: getAddress(typedData.domain.verifyingContract),
    orderHash,
    settlement: 'layerzero',
  };
}

/**
 * How the input chain's escrow is settled, from its `settler()`: the chain's FerryApp (its registry `fill`) means
 * LayerZero, its AttesterMessenger means the attester; null for anything else (the bot then does not fill).
 */
export function settlementMethodOf(settler: Hex, input: ChainInfo): SettlementMethod | null {
  if (same(settler, input.fill)) return 'layerzero';
  if (input.contracts.messenger && same(settler, input.contracts.messenger)) return 'attester';
  return null;
}
