/**
 * The few Ferry HTTP calls the reference liquidity provider (and the demo's money mover) make, over fetch.
 * Every HTTP detail lives here so that a typed SDK can replace this module without touching the bot.
 */

export type Hex = `0x${string}`;

export interface ChainInfo {
  name: string;
  chainId: number;
  escrow: Hex;
  fill: Hex;
  /** Present when the registry marks the RPC URL public (always for the built-in devnets). */
  rpcUrl?: string;
  tokens: { symbol: string; address: Hex; decimals: number }[];
}

export interface QuoteRequestView {
  id: string;
  offerer: Hex;
  recipient: Hex;
  inputToken: Hex;
  outputToken: Hex;
  inputAmount: string;
  inputChain: string;
  outputChain: string;
  status: string;
  createdAt: string;
  expiresAt: string;
}

export interface TypedDataView {
  domain: Record<string, unknown>;
  types: Record<string, unknown>;
  primaryType: string;
  message: Record<string, string> & { fillDeadline: string; filler: Hex };
}

export interface QuoteView {
  id: string;
  quoteRequestId: string;
  outputAmount: string;
  status: string;
  orderId: string;
  signingHash: Hex;
  typedData: TypedDataView;
}

export interface QuoteEnvelope {
  quoteId: string;
  orderId: string;
  quote: QuoteView;
  typedData: TypedDataView;
}

export interface OrderView {
  orderId: string;
  quoteId: string;
  blockchainOrderId: Hex;
  status: string;
  details: {
    offerer: Hex;
    recipient: Hex;
    inputToken: Hex;
    outputToken: Hex;
    inputAmount: string;
    outputAmount: string;
    inputChain: string;
    outputChain: string;
    srcChainTxHash: Hex | null;
    dstChainTxHash: Hex | null;
    settlementTxHash: Hex | null;
  };
  completedAt: string | null;
  failureReason: string | null;
  quote?: QuoteView;
}

/** A non-2xx answer (status and `code` from Ferry's error body), or status 0 when Ferry could not be reached. */
export class FerryApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds from `Retry-After` on a 429. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'FerryApiError';
  }
}

const MAX_PAGES = 20;

interface ErrorBody {
  error?: unknown;
  code?: unknown;
  details?: { path: string; message: string }[];
}

export function createFerryApi(options: { baseUrl: string; apiKey?: string; timeoutMs?: number }) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new FerryApiError(0, 'NETWORK_ERROR', `${method} ${path}: ${(error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!response.ok) {
      const retryAfter = Number(response.headers.get('retry-after'));
      const problem = (parsed ?? {}) as ErrorBody;
      const summary = typeof problem.error === 'string' ? problem.error : response.statusText;
      const detail = Array.isArray(problem.details)
        ? problem.details
            .filter((d) => d.message !== summary)
            .map((d) => ` (${d.path}: ${d.message})`)
            .join('')
        : '';
      throw new FerryApiError(
        response.status,
        typeof problem.code === 'string' ? problem.code : `HTTP_${response.status}`,
        `${method} ${path}: ${response.status} ${summary}${detail}`,
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
      );
    }
    return parsed as T;
  }

  /** Walks every page of a paginated list (bounded, so a huge backlog cannot stall one poll). */
  async function allPages<B, T>(path: string, pick: (body: B) => { items: T[]; totalPages: number }) {
    const items: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const sep = path.includes('?') ? '&' : '?';
      const result = pick(await request<B>('GET', `${path}${sep}page=${page}&pageSize=100`));
      items.push(...result.items);
      if (page >= result.totalPages) break;
    }
    return items;
  }

  return {
    baseUrl,

    async chains(): Promise<ChainInfo[]> {
      const body = await request<{ data: { chains: ChainInfo[] } }>('GET', '/api/public/chains');
      return body.data.chains;
    },

    /** Open quote requests created within `timeWindowSeconds` (a liquidity provider sees everyone's). */
    openQuoteRequests(timeWindowSeconds: number): Promise<QuoteRequestView[]> {
      return allPages<{ data: QuoteRequestView[]; totalPages: number }, QuoteRequestView>(
        `/api/v1/quote-requests?status=open&timeWindow=${timeWindowSeconds}`,
        (body) => ({ items: body.data, totalPages: body.totalPages }),
      );
    },

    async createQuote(input: {
      quoteRequestId: string;
      outputAmount: string;
      validFor?: number;
    }): Promise<QuoteEnvelope> {
      const body = await request<{ data: QuoteEnvelope }>('POST', '/api/v1/quotes', input);
      return body.data;
    },

    /** The caller's orders in `status`, each with its quote (and so its typed data). */
    orders(status: string): Promise<OrderView[]> {
      return allPages<{ data: { orders: OrderView[]; totalPages: number } }, OrderView>(
        `/api/v1/orders?status=${status}&includeQuote=true`,
        (body) => ({ items: body.data.orders, totalPages: body.data.totalPages }),
      );
    },

    // Money-mover calls, used by `ferry demo`.

    async createQuoteRequest(input: {
      offerer: Hex;
      recipient: Hex;
      inputToken: Hex;
      outputToken: Hex;
      inputAmount: string;
      inputChain: string;
      outputChain: string;
    }): Promise<{ quoteId: string }> {
      const body = await request<{ data: { quoteId: string } }>('POST', '/api/v1/quote-requests', input);
      return body.data;
    },

    async quotesFor(quoteRequestId: string): Promise<QuoteView[]> {
      const body = await request<{ data: { quotes: QuoteView[] } }>(
        'GET',
        `/api/v1/quotes?quoteRequestId=${encodeURIComponent(quoteRequestId)}&status=active`,
      );
      return body.data.quotes;
    },

    async acceptQuote(quoteId: string): Promise<{ declinedCount: number }> {
      const body = await request<{ data: { declinedCount: number } }>(
        'POST',
        `/api/v1/quotes/${encodeURIComponent(quoteId)}/accept`,
        { quoteId },
      );
      return body.data;
    },

    async executeSwap(input: {
      orderId: string;
      quoteId: string;
      signature: Hex;
    }): Promise<{ orderId: string; blockchainOrderId: Hex }> {
      const body = await request<{ data: { orderId: string; blockchainOrderId: Hex } }>(
        'POST',
        '/api/v1/swaps',
        input,
      );
      return body.data;
    },

    async order(orderId: string): Promise<OrderView> {
      const body = await request<{ data: OrderView }>('GET', `/api/v1/orders/${encodeURIComponent(orderId)}`);
      return body.data;
    },
  };
}

export type FerryApi = ReturnType<typeof createFerryApi>;
