import { effectiveQuoteRequestStatus, effectiveQuoteStatus } from './lifecycle.ts';
import { orderTermsFrom } from './order-typed-data.ts';
import type { Principal } from './principal.ts';
import type { Order, Quote, QuoteRequest } from './records.ts';

/** Wire shapes of the authenticated API (interface-spec.md): amounts as strings, times as ISO 8601 UTC. */

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function quoteRequestView(qr: QuoteRequest, now: Date) {
  return {
    id: qr.id,
    offerer: qr.offerer,
    recipient: qr.recipient,
    inputToken: qr.inputToken,
    outputToken: qr.outputToken,
    inputAmount: qr.inputAmount.toString(),
    inputChain: qr.inputChain,
    outputChain: qr.outputChain,
    status: effectiveQuoteRequestStatus(qr.status, qr.expiresAt, now),
    acceptedQuoteId: qr.acceptedQuoteId,
    createdAt: qr.createdAt.toISOString(),
    expiresAt: qr.expiresAt.toISOString(),
  };
}

export function quoteView(quote: Quote, qr: QuoteRequest, now: Date) {
  const terms = orderTermsFrom(quote.typedData);
  return {
    id: quote.id,
    quoteRequestId: quote.quoteRequestId,
    liquidityProviderId: quote.liquidityProviderId,
    offerer: qr.offerer,
    recipient: qr.recipient,
    inputToken: qr.inputToken,
    outputToken: qr.outputToken,
    inputAmount: qr.inputAmount.toString(),
    outputAmount: quote.outputAmount.toString(),
    protocolFee: terms.protocolFee.toString(),
    exclusivityDeadline: terms.exclusivityDeadline.toString(),
    inputChain: qr.inputChain,
    outputChain: qr.outputChain,
    startTime: quote.startTime,
    endTime: quote.endTime,
    signingHash: quote.signingHash,
    status: effectiveQuoteStatus(quote.status, quote.endTime, now),
    createdAt: quote.createdAt.toISOString(),
    orderId: quote.orderId,
    typedData: quote.typedData,
  };
}

/** The quote envelope of create quote and get quote. */
export function quoteEnvelope(quote: Quote, qr: QuoteRequest, now: Date) {
  return {
    quoteId: quote.id,
    orderId: quote.orderId,
    quote: quoteView(quote, qr, now),
    typedData: quote.typedData,
  };
}

/**
 * An order as `viewer` sees it. The offerer's signature goes to the order's money mover only: with it anyone can
 * deposit the order into the escrow, and a liquidity provider who did so could bypass Ferry's own checks
 * (e.g. deposit an order Ferry has failed). So for the liquidity provider the field is absent.
 */
export function orderView(order: Order, viewer: Pick<Principal, 'accountId'>) {
  return {
    orderId: order.id,
    quoteId: order.quoteId,
    quoteRequestId: order.quoteRequestId,
    blockchainOrderId: order.blockchainOrderId,
    ...(viewer.accountId === order.moneyMoverAccountId ? { signature: order.signature } : {}),
    status: order.status,
    moneyMoverAccountId: order.moneyMoverAccountId,
    liquidityProviderAccountId: order.liquidityProviderAccountId,
    details: {
      offerer: order.offerer,
      recipient: order.recipient,
      inputToken: order.inputToken,
      outputToken: order.outputToken,
      inputAmount: order.inputAmount.toString(),
      outputAmount: order.outputAmount.toString(),
      inputChain: order.inputChain,
      outputChain: order.outputChain,
      blockchainOrderId: order.blockchainOrderId,
      srcChainTxHash: order.srcChainTxHash,
      dstChainTxHash: order.dstChainTxHash,
      settlementTxHash: order.settlementTxHash,
      filler: order.filler,
      openDeadline: order.openDeadline?.toString() ?? null,
      fillDeadline: order.fillDeadline?.toString() ?? null,
      exclusivityDeadline: order.exclusivityDeadline?.toString() ?? null,
      filledBy: order.filledBy,
      settlement: settlementView(order, viewer),
      protocolFee: order.protocolFee.toString(),
    },
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    completedAt: iso(order.completedAt),
    failureReason: order.failureReason,
    createdBy: order.createdBy,
    updatedBy: order.updatedBy,
    metadata: order.metadata,
  };
}

/** The order's settlement message; the attestation goes to the liquidity provider (its filler) only. */
function settlementView(order: Order, viewer: Pick<Principal, 'accountId'>) {
  if (!order.settlement) return null;
  const { method, messageId, status, txHash } = order.settlement;
  const attestation =
    order.fillAttestation && viewer.accountId === order.liquidityProviderAccountId
      ? { ...order.fillAttestation, fillTime: order.fillAttestation.fillTime.toString() }
      : null;
  return { method, messageId, status, txHash, attestation };
}
