import { effectiveQuoteStatus } from './lifecycle.ts';
import type { Order, Quote, QuoteRequest } from './records.ts';

/** Wire shapes of the public endpoints and the anonymous stream: no account ids, no signatures. */

export function publicOrderView(order: Order) {
  return {
    id: order.id,
    status: order.status,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    offerer: order.offerer,
    recipient: order.recipient,
    inputAmount: order.inputAmount.toString(),
    outputAmount: order.outputAmount.toString(),
    inputToken: order.inputToken,
    outputToken: order.outputToken,
    inputChain: order.inputChain,
    outputChain: order.outputChain,
    srcChainTxHash: order.srcChainTxHash,
    dstChainTxHash: order.dstChainTxHash,
    settlementTxHash: order.settlementTxHash,
    failureReason: order.failureReason,
    source: 'order' as const,
  };
}

export function publicQuoteView(quote: Quote, qr: QuoteRequest, now: Date) {
  return {
    id: quote.id,
    quoteRequestId: quote.quoteRequestId,
    inputToken: qr.inputToken,
    outputToken: qr.outputToken,
    inputAmount: qr.inputAmount.toString(),
    outputAmount: quote.outputAmount.toString(),
    inputChain: qr.inputChain,
    outputChain: qr.outputChain,
    status: effectiveQuoteStatus(quote.status, quote.endTime, now),
    startTime: quote.startTime,
    endTime: quote.endTime,
    createdAt: quote.createdAt.toISOString(),
  };
}

export function publicQuoteRequestView(qr: QuoteRequest) {
  return {
    id: qr.id,
    inputToken: qr.inputToken,
    outputToken: qr.outputToken,
    inputAmount: qr.inputAmount.toString(),
    inputChain: qr.inputChain,
    outputChain: qr.outputChain,
    status: qr.status,
    createdAt: qr.createdAt.toISOString(),
    expiresAt: qr.expiresAt.toISOString(),
  };
}
