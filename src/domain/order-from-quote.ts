import { normalizeAddress } from './address.ts';
import { orderTermsFrom } from './order-typed-data.ts';
import type { Order, Quote, QuoteRequest } from './records.ts';

/**
 * The order an accepted quote becomes once the offerer signed it: its id is the quote's `orderId`, its escrow key
 * the quote's signing hash, its terms the request's and the quote's, its filler and deadlines the signed ones.
 */
export function orderFromAcceptedQuote(input: {
  readonly quote: Quote;
  readonly request: QuoteRequest;
  /** The offerer's signature, in its canonical form. */
  readonly signature: `0x${string}`;
  /** The account that executed the swap. */
  readonly actor: string;
  readonly now: Date;
}): Order {
  const { quote, request, now } = input;
  return {
    id: quote.orderId,
    quoteId: quote.id,
    quoteRequestId: request.id,
    blockchainOrderId: quote.signingHash,
    signature: input.signature,
    status: 'created',
    moneyMoverAccountId: request.accountId,
    liquidityProviderAccountId: quote.liquidityProviderId,
    offerer: request.offerer,
    recipient: request.recipient,
    inputToken: request.inputToken,
    outputToken: request.outputToken,
    inputAmount: request.inputAmount,
    outputAmount: quote.outputAmount,
    inputChain: request.inputChain,
    outputChain: request.outputChain,
    srcChainTxHash: null,
    dstChainTxHash: null,
    settlementTxHash: null,
    failureReason: null,
    metadata: {},
    createdBy: input.actor,
    updatedBy: input.actor,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    filler: normalizeAddress(quote.typedData.message.filler, 'quote.typedData.message.filler'),
    openDeadline: BigInt(quote.typedData.message.openDeadline),
    fillDeadline: BigInt(quote.typedData.message.fillDeadline),
    exclusivityDeadline: orderTermsFrom(quote.typedData).exclusivityDeadline,
    filledBy: null,
    exclusivityLapsedAt: null,
    settlement: null,
    fillAttestation: null,
    protocolFee: orderTermsFrom(quote.typedData).protocolFee,
    source: 'order',
  };
}
