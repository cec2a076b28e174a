/**
 * The Ferry calls the reference liquidity provider makes, on the typed client SDK (`@ferry/client`): no
 * hand-written HTTP here. The bot depends on this narrow surface only (and tests may pass their own).
 */
import {
  type Account,
  type ChainInfo,
  createFerryClient,
  type FerryApiError,
  type FerryClient,
  type FerryEvent,
  type OpenOrder,
  type Order,
  type OrderStatus,
  type QuoteEnvelope,
  type QuoteRequest,
  subscribeWs,
  type WsStatus,
} from '../../sdk/src/index.ts';

export {
  type ChainInfo,
  FerryApiError,
  type OpenOrder,
  type Quote as QuoteView,
  type QuoteEnvelope,
} from '../../sdk/src/index.ts';
export type Hex = `0x${string}`;
export type QuoteRequestView = QuoteRequest;
export type OrderView = Order;

/** What the live stream tells the bot: a new open request, or one of its orders moved. */
export interface StreamHandlers {
  onQuoteRequest(event: FerryEvent): void;
  onOrderUpdate(event: FerryEvent): void;
  onStatus(status: WsStatus): void;
  onError(error: FerryApiError): void;
}

export interface FerryTerms {
  readonly protocolFeeBps: number;
  /** OPEN_WINDOW_SECONDS: an accepted quote without an order holds its output until endTime + this. */
  readonly openWindowSeconds: number;
}

/** The narrow surface the bot calls Ferry through (createFerryApi's, or a test's own). */
export interface FerryApi {
  readonly baseUrl: string;
  /** The whole SDK client, for what the surface below does not cover. */
  readonly client: FerryClient;
  /** The account behind the API key (its type and fill address). */
  account(): Promise<Account>;
  chains(): Promise<ChainInfo[]>;
  /**
   * Ferry's settings the bot's quotes follow: its protocol fee in bps of each order's input (priced into the
   * quotes), and its deposit window after a quote's end (how long an accepted quote holds its output).
   */
  terms(): Promise<FerryTerms>;
  /** Open quote requests created within `timeWindowSeconds` (a liquidity provider sees everyone's). */
  openQuoteRequests(timeWindowSeconds: number): Promise<QuoteRequest[]>;
  createQuote(input: {
    quoteRequestId: string;
    outputAmount: string;
    validFor?: number;
  }): Promise<QuoteEnvelope>;
  /** The caller's orders in `status`, each with its quote (and so its typed data). */
  orders(status: OrderStatus): Promise<Order[]>;
  /** Orders any liquidity provider may fill now (exclusivity lapsed unfilled), with their typed data. */
  openOrders(): Promise<OpenOrder[]>;
  /**
   * Live quote requests (`quoteRequests` channel) and the bot's own order updates (`account`) over the
   * WebSocket, reconnecting by itself. The bot still polls as the fallback.
   */
  watch(handlers: StreamHandlers): { close(): void };
}

const MAX_PAGES = 20;

/** Ferry's default deposit window (config settings OPEN_WINDOW_SECONDS), for a Ferry that does not publish its own. */
const UNPUBLISHED_OPEN_WINDOW_SECONDS = 600;

export function createFerryApi(options: { baseUrl: string; apiKey?: string; timeoutMs?: number }): FerryApi {
  const client = createFerryClient(options);

  /** Walks every page of a paginated list (bounded, so a huge backlog cannot stall one poll). */
  async function allPages<T>(fetchPage: (page: number) => Promise<{ items: T[]; totalPages: number }>) {
    const items: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const result = await fetchPage(page);
      items.push(...result.items);
      if (page >= result.totalPages) break;
    }
    return items;
  }

  return {
    baseUrl: client.baseUrl,
    client,

    /** The account behind the API key (its type and fill address). */
    account() {
      return client.account.get();
    },

    async chains(): Promise<ChainInfo[]> {
      return (await client.public.chains()).data.chains;
    },

    async terms(): Promise<FerryTerms> {
      const { protocolFeeBps, openWindowSeconds } = (await client.public.chains()).data;
      // A Ferry from before it published the window: its default (OPEN_WINDOW_SECONDS), which few change.
      return { protocolFeeBps, openWindowSeconds: openWindowSeconds ?? UNPUBLISHED_OPEN_WINDOW_SECONDS };
    },

    /** Open quote requests created within `timeWindowSeconds` (a liquidity provider sees everyone's). */
    openQuoteRequests(timeWindowSeconds: number): Promise<QuoteRequest[]> {
      return allPages(async (page) => {
        const body = await client.quoteRequests.list({
          status: 'open',
          timeWindow: timeWindowSeconds,
          page,
          pageSize: 100,
        });
        return { items: body.data, totalPages: body.totalPages };
      });
    },

    createQuote(input: { quoteRequestId: string; outputAmount: string; validFor?: number }) {
      return client.quotes.create(input);
    },

    /** The caller's orders in `status`, each with its quote (and so its typed data). */
    orders(status: OrderStatus): Promise<Order[]> {
      return allPages(async (page) => {
        const data = await client.orders.list({ status, includeQuote: true, page, pageSize: 100 });
        return { items: data.orders, totalPages: data.totalPages };
      });
    },

    openOrders(): Promise<OpenOrder[]> {
      return allPages(async (page) => {
        const data = await client.orders.open({ page, pageSize: 100 });
        return { items: data.openOrders, totalPages: data.totalPages };
      });
    },

    /**
     * Live quote requests (`quoteRequests` channel) and the bot's own order updates (`account`) over the
     * WebSocket, reconnecting by itself. The bot still polls as the fallback.
     */
    watch(handlers: StreamHandlers): { close(): void } {
      return subscribeWs({
        baseUrl: options.baseUrl,
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        channels: ['quoteRequests', 'account'],
        onEvent(event, channel) {
          // A request to quote, or an order any provider may now fill: either way a pass is due.
          if (channel === 'quoteRequests') handlers.onQuoteRequest(event);
          else if (channel === 'account' && event.type === 'order.updated') handlers.onOrderUpdate(event);
        },
        onStatus: handlers.onStatus,
        onError: handlers.onError,
      });
    },
  };
}
