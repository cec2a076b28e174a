/**
 * Named request and response types of the Ferry API, all derived from the generated `openapi-types.ts`
 * (itself generated from the server's own OpenAPI document), so none of them can drift from the server.
 */
import type { components, paths } from './openapi-types.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer S }
    ? Json<S>
    : R extends { 201: infer S }
      ? Json<S>
      : never
  : never;
type Created<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 201: infer S };
}
  ? Json<S>
  : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

/** The error body every failed request answers with. */
export type ErrorBody = components['schemas']['ErrorBody'];
/** Every machine-readable error code the server can answer with. */
export type ErrorCode = ErrorBody['code'];
/** One offending field: `path` is prefixed by its location (`body.`, `query.`, `params.`, `headers.`). */
export type ErrorDetail = ErrorBody['details'][number];

export type CreateQuoteRequestInput = Body<'/api/v1/quote-requests', 'post'>;
export type ListQuoteRequestsQuery = Partial<Query<'/api/v1/quote-requests', 'get'>>;
export type QuoteRequestPage = Omit<Ok<'/api/v1/quote-requests', 'get'>, 'message'>;
export type QuoteRequest = QuoteRequestPage['data'][number];
export type QuoteRequestStatus = QuoteRequest['status'];
/** `data` of create/get quote request: `quoteId` is the quote request's id (name kept from the spec). */
export type QuoteRequestEnvelope = Ok<'/api/v1/quote-requests/{id}', 'get'>['data'];

export type CreateQuoteInput = Body<'/api/v1/quotes', 'post'>;
export type ListQuotesQuery = Partial<Query<'/api/v1/quotes', 'get'>>;
export type QuoteList = Ok<'/api/v1/quotes', 'get'>['data'];
export type QuoteEnvelope = Ok<'/api/v1/quotes/{id}', 'get'>['data'];
export type Quote = QuoteEnvelope['quote'];
export type QuoteStatus = Quote['status'];
/** The EIP-712 typed data of an order: sign it exactly as received (see signQuote). */
export type OrderTypedData = QuoteEnvelope['typedData'];
export type AcceptQuoteResult = Ok<'/api/v1/quotes/{id}/accept', 'post'>['data'];

export type ExecuteSwapInput = Body<'/api/v1/swaps', 'post'>;
export type SwapResult = Created<'/api/v1/swaps', 'post'>['data'];

export type ListOrdersQuery = Partial<Query<'/api/v1/orders', 'get'>>;
export type OrderPage = Ok<'/api/v1/orders', 'get'>['data'];
export type Order = Ok<'/api/v1/orders/{id}', 'get'>['data'];
export type OrderStatus = Order['status'];
export type OpenOrdersQuery = Partial<Query<'/api/v1/open-orders', 'get'>>;
export type OpenOrderPage = Ok<'/api/v1/open-orders', 'get'>['data'];
/**
 * An order any liquidity provider may fill now (its exclusivity lapsed unfilled): the public order and the signed
 * typed data a fill takes.
 */
export type OpenOrder = OpenOrderPage['openOrders'][number];
export type AccountType = NonNullable<ListOrdersQuery['accountType']>;
/** The calling account (GET /api/v1/account). */
export type Account = Ok<'/api/v1/account', 'get'>['data'];

export type CreateWebhookInput = Body<'/api/v1/webhooks', 'post'>;
/** A new endpoint with its signing `secret` (`whsec_…`), shown only once: keep it to verify deliveries. */
export type CreatedWebhook = Created<'/api/v1/webhooks', 'post'>['data'];
/** An endpoint as listed (never with its secret). */
export type Webhook = Ok<'/api/v1/webhooks', 'get'>['data']['webhooks'][number];
export type WebhookDeliveriesQuery = Partial<Query<'/api/v1/webhooks/{id}/deliveries', 'get'>>;
/** One event for one endpoint, with each attempt (HTTP status or error, next attempt). */
export type WebhookDelivery = Ok<'/api/v1/webhooks/{id}/deliveries', 'get'>['data']['deliveries'][number];
export type DeletedWebhook = Ok<'/api/v1/webhooks/{id}', 'delete'>['data'];
export type RetriedWebhookDelivery = Json<
  paths['/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry']['post']['responses'][202]
>['data'];

export type PublicOrdersQuery = Partial<Query<'/api/public/orders', 'get'>>;
export type PublicOrderPage = Ok<'/api/public/orders', 'get'>;
export type PublicOrder = PublicOrderPage['data']['orders'][number];
/** `GET /api/public/orders/{id}`: one order (public view) and its timeline of order events. */
export type PublicOrderDetail = Ok<'/api/public/orders/{id}', 'get'>;
export type RecentQuotesQuery = Partial<Query<'/api/public/quotes/recent', 'get'>>;
export type RecentQuotes = Ok<'/api/public/quotes/recent', 'get'>;
export type PublicQuote = RecentQuotes['data']['quotes'][number];
export type ChainList = Ok<'/api/public/chains', 'get'>;
/** `GET /api/public/stats`: volume per day and pair, fill times, outcomes (whole body). */
export type PublicStats = Ok<'/api/public/stats', 'get'>;
export type ChainInfo = ChainList['data']['chains'][number];
export type TokenInfo = ChainInfo['tokens'][number];

export type NonceResult = Ok<'/auth/nonce', 'get'>;
export type VerifyInput = Body<'/auth/verify', 'post'>;
export type VerifyResult = Ok<'/auth/verify', 'post'>;
export type Session = VerifyResult['session'];
export type LogoutResult = Ok<'/auth/logout', 'post'>;
export type HealthResult = Ok<'/healthz', 'get'>;

/** The public view of a quote request, carried by `quoteRequest.*` events. */
export type PublicQuoteRequest = components['schemas']['PublicQuoteRequest'];
/**
 * One event of the event log, as both the SSE stream and the WebSocket deliver it (docs/events.md): a union on
 * `type`, generated from the server's event catalogue.
 */
export type FerryEvent = components['schemas']['FerryEvent'];
export type FerryEventType = FerryEvent['type'];
/** A WebSocket channel: `public`, `quoteRequests` (liquidity providers) or `account`. */
export type WsChannel = components['schemas']['WsChannel'];
