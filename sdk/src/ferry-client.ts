/**
 * Ferry's typed client SDK, the package `@ferry/client` (sdk/). Built on openapi-fetch with types generated from the
 * server's own OpenAPI document (sdk/src/openapi-types.ts), so requests and responses cannot drift from it.
 *
 * Return values: methods under `/api/v1` resolve to the `data` member of the `{message, data}` envelope (the one
 * exception, `quoteRequests.list`, resolves to the body without `message`, because its page counters sit beside
 * `data`); public, auth and health methods resolve to the whole response body. Every failure throws a
 * FerryApiError carrying `status`, `code`, `details` and `retryAfter`. See docs/sdk.md.
 */
import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse, FerryApiError, networkError } from './ferry-error.js';
import type { paths } from './openapi-types.js';
import type {
  AcceptQuoteResult,
  Account,
  ChainList,
  CreatedWebhook,
  CreateQuoteInput,
  CreateQuoteRequestInput,
  CreateWebhookInput,
  DeletedWebhook,
  ExecuteSwapInput,
  HealthResult,
  ListOrdersQuery,
  ListQuoteRequestsQuery,
  ListQuotesQuery,
  LogoutResult,
  NonceResult,
  OpenOrderPage,
  OpenOrdersQuery,
  Order,
  OrderPage,
  PublicOrderDetail,
  PublicOrderPage,
  PublicOrdersQuery,
  PublicStats,
  QuoteEnvelope,
  QuoteList,
  QuoteRequestEnvelope,
  QuoteRequestPage,
  RecentQuotes,
  RecentQuotesQuery,
  RetriedWebhookDelivery,
  Session,
  SwapResult,
  VerifyInput,
  VerifyResult,
  Webhook,
  WebhookDeliveriesQuery,
  WebhookDelivery,
} from './types.js';

export interface FerryClientOptions {
  /** Ferry's base URL, e.g. `http://127.0.0.1:8080` (no trailing path). */
  baseUrl: string;
  /** API key (sent as `x-api-key`), issued by `ferry keys create`. */
  apiKey?: string;
  /** Session token from Sign-In with Ethereum (sent as `Authorization: Bearer`); see signInWithEthereum. */
  sessionToken?: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Per-request timeout in milliseconds (default 10,000; 0 turns it off). */
  timeoutMs?: number;
  /** Extra headers sent on every request. */
  headers?: Record<string, string>;
  /** The session from POST /auth/verify; its token is used when `sessionToken` is not given. */
  session?: Session;
}

/** Options of one call. */
export interface CallOptions {
  /** Cancels the request. */
  signal?: AbortSignal;
  /** Extra headers for this request. */
  headers?: Record<string, string>;
}

/** Options of one POST: the same, plus an `Idempotency-Key` (same key and body replays the stored response). */
export interface PostOptions extends CallOptions {
  idempotencyKey?: string;
}

/** One Ferry server and one credential: every API call as a method (see the module comment for return values). */
export interface FerryClient {
  readonly baseUrl: string;
  /** The options this client was created with. */
  readonly options: Readonly<FerryClientOptions>;
  /** The session this client acts with (set by signInWithEthereum), otherwise null. */
  readonly session: Session | null;
  /** The underlying openapi-fetch client (typed by path), for anything the methods below do not cover. */
  readonly raw: Raw;
  /** GET /healthz: liveness of the server. */
  health(opts?: CallOptions): Promise<HealthResult>;
  readonly quoteRequests: {
    /** POST /api/v1/quote-requests (money mover): asks liquidity providers to quote a swap. */
    create(input: CreateQuoteRequestInput, opts?: PostOptions): Promise<QuoteRequestEnvelope>;
    /** GET /api/v1/quote-requests: a page of quote requests (the body without `message`: `data` and page counters). */
    list(query?: ListQuoteRequestsQuery, opts?: CallOptions): Promise<QuoteRequestPage>;
    /** GET /api/v1/quote-requests/{id}: one quote request. */
    get(id: string, opts?: CallOptions): Promise<QuoteRequestEnvelope>;
  };
  readonly quotes: {
    /** POST /api/v1/quotes (liquidity provider): quotes an open request; returns the typed data to be signed. */
    create(input: CreateQuoteInput, opts?: PostOptions): Promise<QuoteEnvelope>;
    /** GET /api/v1/quotes: quotes on your requests (money mover) or your own quotes (liquidity provider). */
    list(query?: ListQuotesQuery, opts?: CallOptions): Promise<QuoteList>;
    /** GET /api/v1/quotes/{id}: the quote envelope with its typed data. */
    get(id: string, opts?: CallOptions): Promise<QuoteEnvelope>;
    /** POST /api/v1/quotes/{id}/accept (money mover): accepts it and declines the request's other quotes. */
    accept(id: string, opts?: PostOptions): Promise<AcceptQuoteResult>;
  };
  readonly swaps: {
    /** POST /api/v1/swaps (money mover): submits the offerer's signature and creates the order (same input: same order). */
    execute(input: ExecuteSwapInput, opts?: PostOptions): Promise<SwapResult>;
  };
  readonly account: {
    /** GET /api/v1/account: the account behind your credentials (type, and a liquidity provider's fill address). */
    get(opts?: CallOptions): Promise<Account>;
  };
  readonly webhooks: {
    /** POST /api/v1/webhooks: registers an endpoint; the answer's `secret` is shown only this once. */
    create(input: CreateWebhookInput, opts?: PostOptions): Promise<CreatedWebhook>;
    /** GET /api/v1/webhooks: your endpoints, without secrets. */
    list(opts?: CallOptions): Promise<Webhook[]>;
    /** DELETE /api/v1/webhooks/{id}: stops its deliveries and deletes its log. */
    delete(id: string, opts?: CallOptions): Promise<DeletedWebhook>;
    /** GET /api/v1/webhooks/{id}/deliveries: the newest deliveries, each with its attempts. */
    deliveries(id: string, query?: WebhookDeliveriesQuery, opts?: CallOptions): Promise<WebhookDelivery[]>;
    /** POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/retry: sends a failed (or delivered) one again now. */
    retry(id: string, deliveryId: string, opts?: PostOptions): Promise<RetriedWebhookDelivery>;
  };
  readonly orders: {
    /** GET /api/v1/orders: a page of your orders (`includeQuote: true` embeds each order's quote). */
    list(query?: ListOrdersQuery, opts?: CallOptions): Promise<OrderPage>;
    /** GET /api/v1/orders/{id}: one of your orders (another account's is 404 ORDER_NOT_FOUND). */
    get(id: string, opts?: CallOptions): Promise<Order>;
    /**
     * GET /api/v1/open-orders (liquidity providers): orders whose quoted provider's exclusivity lapsed unfilled, which
     * any provider may fill now, each with the signed typed data a fill takes.
     */
    open(query?: OpenOrdersQuery, opts?: CallOptions): Promise<OpenOrderPage>;
  };
  readonly public: {
    /**
     * GET /api/public/orders: recent orders of everyone (whole body: `{status, data: {orders}, total, page, …}`);
     * `q` searches by order id, blockchain order id, tx hash or address.
     */
    orders(query?: PublicOrdersQuery, opts?: CallOptions): Promise<PublicOrderPage>;
    /** GET /api/public/orders/{id}: any order by id, public view, with its timeline (whole body). */
    order(id: string, opts?: CallOptions): Promise<PublicOrderDetail>;
    /** GET /api/public/quotes/recent: the latest quotes, public view (whole body). */
    recentQuotes(query?: RecentQuotesQuery, opts?: CallOptions): Promise<RecentQuotes>;
    /** GET /api/public/chains: supported chains, their escrow and fill contracts, and tokens (whole body). */
    chains(opts?: CallOptions): Promise<ChainList>;
    /** GET /api/public/stats: what the explorer charts (whole body). */
    stats(opts?: CallOptions): Promise<PublicStats>;
  };
  readonly auth: {
    /** GET /auth/nonce: a single-use nonce for a Sign-In with Ethereum message. */
    nonce(opts?: CallOptions): Promise<NonceResult>;
    /** POST /auth/verify: checks a signed SIWE message and opens a session (see signInWithEthereum). */
    verify(input: VerifyInput, opts?: PostOptions): Promise<VerifyResult>;
    /** POST /auth/logout: ends this client's session. */
    logout(opts?: PostOptions): Promise<LogoutResult>;
  };
}

type Raw = Client<paths>;
interface RawResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** Runs one openapi-fetch call; turns a non-2xx answer or a network failure into a FerryApiError. */
async function call<T>(label: string, run: () => Promise<RawResult>): Promise<T> {
  let result: RawResult;
  try {
    result = await run();
  } catch (error) {
    if (error instanceof FerryApiError) throw error;
    throw networkError(error, label);
  }
  if (!result.response.ok) throw errorFromResponse(result.response, result.error, label);
  return result.data as T;
}

/** The per-call part of a request: its headers (with an Idempotency-Key) and abort signal. */
const init = (opts: PostOptions = {}) => {
  const h: Record<string, string> = { ...opts.headers };
  if (opts.idempotencyKey) h['idempotency-key'] = opts.idempotencyKey;
  return { headers: h, ...(opts.signal ? { signal: opts.signal } : {}) };
};

/** The openapi-fetch client: the credential's headers on every request, and the per-request timeout. */
function createRaw(options: FerryClientOptions, baseUrl: string, session: Session | null): Raw {
  const sessionToken = options.sessionToken ?? session?.token;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const baseFetch = options.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (sessionToken) headers.authorization = `Bearer ${sessionToken}`;
  return createClient<paths>({
    baseUrl,
    headers,
    fetch: (request: Request) => {
      const signal =
        timeoutMs > 0 ? AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) : undefined;
      return baseFetch(request, signal ? { signal } : undefined);
    },
  });
}

/** Creates a client for one Ferry server and one credential (API key, session, or none for public calls). */
export function createFerryClient(options: FerryClientOptions): FerryClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const session = options.session ?? null;
  const raw = createRaw(options, baseUrl, session);

  const enc = encodeURIComponent;

  return {
    baseUrl,
    options: Object.freeze({ ...options, baseUrl }),
    session,
    raw,

    health: (opts?: CallOptions) => call<HealthResult>('GET /healthz', () => raw.GET('/healthz', init(opts))),

    quoteRequests: {
      create: (input: CreateQuoteRequestInput, opts?: PostOptions) =>
        call<{ data: QuoteRequestEnvelope }>('POST /api/v1/quote-requests', () =>
          raw.POST('/api/v1/quote-requests', { body: input, ...init(opts) }),
        ).then((body) => body.data),
      list: (query: ListQuoteRequestsQuery = {}, opts?: CallOptions) =>
        call<QuoteRequestPage & { message?: string }>('GET /api/v1/quote-requests', () =>
          raw.GET('/api/v1/quote-requests', { params: { query }, ...init(opts) } as never),
        ).then(({ message: _message, ...page }) => page as QuoteRequestPage),
      get: (id: string, opts?: CallOptions) =>
        call<{ data: QuoteRequestEnvelope }>(`GET /api/v1/quote-requests/${enc(id)}`, () =>
          raw.GET('/api/v1/quote-requests/{id}', { params: { path: { id } }, ...init(opts) }),
        ).then((body) => body.data),
    },

    quotes: {
      create: (input: CreateQuoteInput, opts?: PostOptions) =>
        call<{ data: QuoteEnvelope }>('POST /api/v1/quotes', () =>
          raw.POST('/api/v1/quotes', { body: input, ...init(opts) }),
        ).then((body) => body.data),
      list: (query: ListQuotesQuery = {}, opts?: CallOptions) =>
        call<{ data: QuoteList }>('GET /api/v1/quotes', () =>
          raw.GET('/api/v1/quotes', { params: { query }, ...init(opts) } as never),
        ).then((body) => body.data),
      get: (id: string, opts?: CallOptions) =>
        call<{ data: QuoteEnvelope }>(`GET /api/v1/quotes/${enc(id)}`, () =>
          raw.GET('/api/v1/quotes/{id}', { params: { path: { id } }, ...init(opts) }),
        ).then((body) => body.data),
      accept: (id: string, opts?: PostOptions) =>
        call<{ data: AcceptQuoteResult }>(`POST /api/v1/quotes/${enc(id)}/accept`, () =>
          raw.POST('/api/v1/quotes/{id}/accept', {
            params: { path: { id } },
            body: { quoteId: id },
            ...init(opts),
          }),
        ).then((body) => body.data),
    },

    swaps: {
      execute: (input: ExecuteSwapInput, opts?: PostOptions) =>
        call<{ data: SwapResult }>('POST /api/v1/swaps', () =>
          raw.POST('/api/v1/swaps', { body: input, ...init(opts) }),
        ).then((body) => body.data),
    },

    account: {
      get: (opts?: CallOptions) =>
        call<{ data: Account }>('GET /api/v1/account', () => raw.GET('/api/v1/account', init(opts))).then(
          (body) => body.data,
        ),
    },

    webhooks: webhookMethods(raw),

    orders: {
      list: (query: ListOrdersQuery = {}, opts?: CallOptions) =>
        call<{ data: OrderPage }>('GET /api/v1/orders', () =>
          raw.GET('/api/v1/orders', { params: { query }, ...init(opts) } as never),
        ).then((body) => body.data),
      get: (id: string, opts?: CallOptions) =>
        call<{ data: Order }>(`GET /api/v1/orders/${enc(id)}`, () =>
          raw.GET('/api/v1/orders/{id}', { params: { path: { id } }, ...init(opts) }),
        ).then((body) => body.data),
      open: (query: OpenOrdersQuery = {}, opts?: CallOptions) =>
        call<{ data: OpenOrderPage }>('GET /api/v1/open-orders', () =>
          raw.GET('/api/v1/open-orders', { params: { query }, ...init(opts) } as never),
        ).then((body) => body.data),
    },

    public: {
      orders: (query: PublicOrdersQuery = {}, opts?: CallOptions) =>
        call<PublicOrderPage>('GET /api/public/orders', () =>
          raw.GET('/api/public/orders', { params: { query }, ...init(opts) } as never),
        ),
      order: (id: string, opts?: CallOptions) =>
        call<PublicOrderDetail>(`GET /api/public/orders/${enc(id)}`, () =>
          raw.GET('/api/public/orders/{id}', { params: { path: { id } }, ...init(opts) }),
        ),
      recentQuotes: (query: RecentQuotesQuery = {}, opts?: CallOptions) =>
        call<RecentQuotes>('GET /api/public/quotes/recent', () =>
          raw.GET('/api/public/quotes/recent', { params: { query }, ...init(opts) } as never),
        ),
      chains: (opts?: CallOptions) =>
        call<ChainList>('GET /api/public/chains', () => raw.GET('/api/public/chains', init(opts))),
      stats: (opts?: CallOptions) =>
        call<PublicStats>('GET /api/public/stats', () => raw.GET('/api/public/stats', init(opts))),
    },

    auth: {
      nonce: (opts?: CallOptions) =>
        call<NonceResult>('GET /auth/nonce', () => raw.GET('/auth/nonce', init(opts))),
      verify: (input: VerifyInput, opts?: PostOptions) =>
        call<VerifyResult>('POST /auth/verify', () =>
          raw.POST('/auth/verify', { body: input, ...init(opts) }),
        ),
      logout: (opts?: PostOptions) =>
        call<LogoutResult>('POST /auth/logout', () => raw.POST('/auth/logout', init(opts))),
    },
  };
}

/** The webhook routes (docs/webhooks.md); verifyWebhook (webhook-verify.ts) checks what they deliver. */
function webhookMethods(raw: Raw): FerryClient['webhooks'] {
  const enc = encodeURIComponent;
  return {
    create: (input: CreateWebhookInput, opts?: PostOptions) =>
      call<{ data: CreatedWebhook }>('POST /api/v1/webhooks', () =>
        raw.POST('/api/v1/webhooks', { body: input, ...init(opts) }),
      ).then((body) => body.data),
    list: (opts?: CallOptions) =>
      call<{ data: { webhooks: Webhook[] } }>('GET /api/v1/webhooks', () =>
        raw.GET('/api/v1/webhooks', init(opts)),
      ).then((body) => body.data.webhooks),
    delete: (id: string, opts?: CallOptions) =>
      call<{ data: DeletedWebhook }>(`DELETE /api/v1/webhooks/${enc(id)}`, () =>
        raw.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } }, ...init(opts) }),
      ).then((body) => body.data),
    deliveries: (id: string, query: WebhookDeliveriesQuery = {}, opts?: CallOptions) =>
      call<{ data: { deliveries: WebhookDelivery[] } }>(`GET /api/v1/webhooks/${enc(id)}/deliveries`, () =>
        raw.GET('/api/v1/webhooks/{id}/deliveries', {
          params: { path: { id }, query },
          ...init(opts),
        } as never),
      ).then((body) => body.data.deliveries),
    retry: (id: string, deliveryId: string, opts?: PostOptions) =>
      call<{ data: RetriedWebhookDelivery }>(
        `POST /api/v1/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/retry`,
        () =>
          raw.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry', {
            params: { path: { id, deliveryId } },
            ...init(opts),
          }),
      ).then((body) => body.data),
  };
}
