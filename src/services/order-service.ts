import type { Address } from '../domain/address.ts';
import { fieldError } from '../domain/app-error.ts';
import type { OrderStatus } from '../domain/lifecycle.ts';
import { type Page, type PageRequest, toPage } from '../domain/pagination.ts';
import type { AccountType, Principal } from '../domain/principal.ts';
import type { Order, Quote, QuoteRequest } from '../domain/records.ts';
import { listOrderEvents } from '../store/events-store.ts';
import { findOrder, listAccountOrders, listPublicOrders } from '../store/orders-store.ts';
import { findQuoteRequests } from '../store/quote-requests-store.ts';
import { findQuotes, recentQuotes } from '../store/quotes-store.ts';
import type { ServiceDeps } from './service-deps.ts';
import { VersionedCache } from './versioned-cache.ts';

export function createOrderService({
  database,
  eventVersion,
}: ServiceDeps & {
  /** The process's event version (event-fanout.ts): moves with every local commit and every tailed event. */
  eventVersion: () => number;
}) {
  // The public listing is the same for every anonymous caller and is read far more often than orders change:
  // pages are kept until the next event (bench/README.md: 50 wide rows and a count per request otherwise).
  // Every change of an order the public can see commits in one unit of work with its event (database.ts), so
  // the event version moves whenever the listing may have changed: a hit costs no database round trip. A change
  // made through another instance shows once this instance's tailer has read its event (the Redis notice wakes
  // it at once), the same moment its stream clients see it.
  const publicPages = new VersionedCache<Page<Order>>(256);
  const isParty = (principal: Principal, order: Order) =>
    order.moneyMoverAccountId === principal.accountId ||
    order.liquidityProviderAccountId === principal.accountId;

  return {
    /** Another account's order answers exactly like a missing one: no existence leak. */
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
      const quotes = new Map<string, { quote: Quote; request: QuoteRequest }>();
      if (query.includeQuote) {
        const byId = await findQuotes(
          database.db,
          result.items.map((order) => order.quoteId),
        );
        const requests = await findQuoteRequests(
          database.db,
          result.items.map((order) => order.quoteRequestId),
        );
        for (const order of result.items) {
          const quote = byId.get(order.quoteId);
          const request = requests.get(order.quoteRequestId);
          if (quote && request) quotes.set(order.id, { quote, request });
        }
      }
      return { page: toPage(result.items, result.total, page), quotes };
    },

    async listPublic(address: Address | null, page: PageRequest): Promise<Page<Order>> {
      const version = eventVersion();
      return publicPages.get(`${address ?? '*'}:${page.page}:${page.pageSize}`, version, async () => {
        const result = await listPublicOrders(database.db, address, page);
        return toPage(result.items, result.total, page);
      });
    },

    /** Any order by id, for the public view, with its order events from the event log (its timeline). */
    async getPublic(id: string) {
      const order = await findOrder(database.db, id);
      if (!order) throw fieldError('ORDER_NOT_FOUND', 'params.id', `order ${id} does not exist`);
      return { order, events: await listOrderEvents(database.db, id) };
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

export type OrderService = ReturnType<typeof createOrderService>;
