import { fieldError } from '../domain/app-error.ts';
import type { OrderStatus } from '../domain/lifecycle.ts';
import { type OrderSearch, searchKey } from '../domain/order-search.ts';
import { STATS_WINDOW_DAYS } from '../domain/order-stats.ts';
import { type Page, type PageRequest, toPage } from '../domain/pagination.ts';
import type { AccountType, Principal } from '../domain/principal.ts';
import { publicStatsView } from '../domain/public-views.ts';
import type { Order, Quote, QuoteRequest } from '../domain/records.ts';
import { listOrderEvents, type StoredEvent } from '../store/engine/events-store.ts';
import { orderStats } from '../store/tables/order-stats-store.ts';
import {
  findOrder,
  listAccountOrders,
  listOpenOrders,
  listPublicOrders,
} from '../store/tables/orders-store.ts';
import { findQuoteRequests } from '../store/tables/quote-requests-store.ts';
import { findQuotes, recentQuotes } from '../store/tables/quotes-store.ts';
import type { ServiceDeps } from './service-deps.ts';
import { ThrottledCache } from './throttled-cache.ts';
import { VersionedCache } from './versioned-cache.ts';

/** An account's own orders, a quote with its request, and the public (explorer) reads of orders and stats. */
export interface OrderService {
  /** Another account's order answers exactly like a missing one: no existence leak. */
  get(principal: Principal, id: string): Promise<Order>;
  /**
   * Orders any liquidity provider may fill now (deposited, exclusivity lapsed unfilled, fill deadline ahead), each
   * with its quote (whose typed data is the signed order a fill takes).
   */
  listOpen(page: PageRequest): Promise<{ page: Page<Order>; quotes: Map<string, QuotedRequest> }>;
  /** A page of the principal's orders, with each order's quote and request when `includeQuote`. */
  list(
    principal: Principal,
    query: { status: OrderStatus | null; accountType: AccountType | null; includeQuote: boolean },
    page: PageRequest,
  ): Promise<{ page: Page<Order>; quotes: Map<string, QuotedRequest> }>;
  /** `search` from `q` (an address there also matches the fill address), or the older `address` filter. */
  listPublic(
    search: OrderSearch | null,
    page: PageRequest,
    options: { matchFiller: boolean },
  ): Promise<Page<Order>>;
  /** Any order by id, for the public view, with its order events from the event log (its timeline). */
  getPublic(id: string): Promise<{ order: Order; events: StoredEvent[] }>;
  /** The public stats (charts): volume per day and pair, fill times, outcomes over STATS_WINDOW_DAYS. */
  publicStats(): Promise<PublicStatsView>;
  /** The latest quotes, each with its request (a quote whose request is gone is left out). */
  recentQuotes(limit: number): Promise<QuotedRequest[]>;
}

/** A quote and the request it answers. */
export interface QuotedRequest {
  readonly quote: Quote;
  readonly request: QuoteRequest;
}

type PublicStatsView = ReturnType<typeof publicStatsView>;

export function createOrderService({
  database,
  clock,
  eventVersion,
}: ServiceDeps & {
  /** The process's event version (event-fanout.ts): moves with every local commit and every tailed event. */
  eventVersion: () => number;
}): OrderService {
  // The public listing is the same for every anonymous caller and is read far more often than orders change:
  // pages are kept until the next event (bench/README.md: 50 wide rows and a count per request otherwise).
  // Every change of an order the public can see commits in one unit of work with its event (database.ts), so
  // the event version moves whenever the listing may have changed: a hit costs no database round trip. A change
  // made through another instance shows once this instance's tailer has read its event (the Redis notice wakes
  // it at once), the same moment its stream clients see it.
  const publicPages = new VersionedCache<Page<Order>>(256);
  const searchPages = new VersionedCache<Page<Order>>(256);
  // The stats scan every order of the window: recomputed at most every 5 s while orders change, and every minute
  // otherwise (the window rolls on), whatever the request rate; concurrent requests share one computation.
  const stats = new ThrottledCache<PublicStatsView>({ minAgeMs: 5_000, maxAgeMs: 60_000 });
  const isParty = (principal: Principal, order: Order) =>
    order.moneyMoverAccountId === principal.accountId ||
    order.liquidityProviderAccountId === principal.accountId;
  /** Each order's quote and request (an order whose quote or request is gone is left out). */
  async function quotesOf(orders: readonly Order[]): Promise<Map<string, QuotedRequest>> {
    const [byId, requests] = await Promise.all([
      findQuotes(
        database.db,
        orders.map((order) => order.quoteId),
      ),
      findQuoteRequests(
        database.db,
        orders.map((order) => order.quoteRequestId),
      ),
    ]);
    const quotes = new Map<string, QuotedRequest>();
    for (const order of orders) {
      const quote = byId.get(order.quoteId);
      const request = requests.get(order.quoteRequestId);
      if (quote && request) quotes.set(order.id, { quote, request });
    }
    return quotes;
  }

  return {
    async get(principal: Principal, id: string): Promise<Order> {
      const order = await findOrder(database.db, id);
      if (!order || !isParty(principal, order)) {
        throw fieldError('ORDER_NOT_FOUND', 'params.id', `order ${id} does not exist`);
      }
      return order;
    },

    async list(
      principal: Principal,
      query: { status: OrderStatus | null; accountType: AccountType | null; includeQuote: boolean },
      page: PageRequest,
    ) {
      const result = await listAccountOrders(
        database.db,
        {
          accountId: principal.accountId,
          side: query.accountType ?? principal.accountType,
          status: query.status,
        },
        page,
      );
      const quotes = query.includeQuote ? await quotesOf(result.items) : new Map<string, QuotedRequest>();
      return { page: toPage(result.items, result.total, page), quotes };
    },

    async listOpen(page: PageRequest) {
      const result = await listOpenOrders(database.db, Math.floor(clock.now().getTime() / 1000), page);
      return { page: toPage(result.items, result.total, page), quotes: await quotesOf(result.items) };
    },

    async listPublic(
      search: OrderSearch | null,
      page: PageRequest,
      { matchFiller }: { matchFiller: boolean },
    ): Promise<Page<Order>> {
      const version = eventVersion();
      const key = `${searchKey(search)}:${matchFiller}:${page.page}:${page.pageSize}`;
      // Searches have their own entries: any number of distinct search texts cannot push out the listing's pages.
      const cache = matchFiller ? searchPages : publicPages;
      return cache.get(key, version, async () => {
        const result = await listPublicOrders(database.db, search, page, { matchFiller });
        return toPage(result.items, result.total, page);
      });
    },

    async getPublic(id: string) {
      const order = await findOrder(database.db, id);
      if (!order) throw fieldError('ORDER_NOT_FOUND', 'params.id', `order ${id} does not exist`);
      return { order, events: await listOrderEvents(database.db, id) };
    },

    publicStats() {
      const now = clock.now();
      return stats.get(eventVersion(), now.getTime(), async () => {
        const since = new Date(now.getTime() - STATS_WINDOW_DAYS * 86_400_000);
        const result = await orderStats(database.db, database.dialect, since.getTime());
        return publicStatsView(result, { days: STATS_WINDOW_DAYS, since, generatedAt: now });
      });
    },

    async recentQuotes(limit: number) {
      const quotes = await recentQuotes(database.db, limit);
      const requests = await findQuoteRequests(
        database.db,
        quotes.map((quote) => quote.quoteRequestId),
      );
      return quotes.flatMap((quote) => {
        const request = requests.get(quote.quoteRequestId);
        return request ? [{ quote, request }] : [];
      });
    },
  };
}
