import { effectiveQuoteStatus, ORDER_STATUSES } from './lifecycle.ts';
import { FILL_TIME_BUCKETS, type OrderStats } from './order-stats.ts';
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
    source: order.source,
    blockchainOrderId: order.blockchainOrderId,
    filler: order.filler,
    completedAt: order.completedAt?.toISOString() ?? null,
    openDeadline: order.openDeadline?.toString() ?? null,
    fillDeadline: order.fillDeadline?.toString() ?? null,
    exclusivityDeadline: order.exclusivityDeadline?.toString() ?? null,
    filledBy: order.filledBy,
    settlementMethod: order.settlement?.method ?? null,
    messageId: order.settlement?.messageId ?? null,
    settlementStatus: order.settlement?.status ?? null,
    protocolFee: order.protocolFee.toString(),
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

/** The stats' wire shape: UTC days as YYYY-MM-DD, amounts as strings, every bucket and status present. */
export function publicStatsView(
  stats: OrderStats,
  window: { readonly days: number; readonly since: Date; readonly generatedAt: Date },
) {
  return {
    windowDays: window.days,
    since: window.since.toISOString(),
    generatedAt: window.generatedAt.toISOString(),
    volume: stats.volume.map((row) => ({
      day: new Date(row.day * 86_400_000).toISOString().slice(0, 10),
      inputChain: row.inputChain,
      outputChain: row.outputChain,
      inputToken: row.inputToken,
      inputAmount: row.amount.toString(),
      protocolFee: row.protocolFee.toString(),
      orders: row.orders,
    })),
    fillTimes: FILL_TIME_BUCKETS.map((bucket, i) => ({
      fromSeconds: bucket.from,
      toSeconds: bucket.to,
      orders: stats.fillTimes[i] ?? 0,
    })),
    outcomes: ORDER_STATUSES.map((status) => ({ status, orders: stats.outcomes.get(status) ?? 0 })),
  };
}
