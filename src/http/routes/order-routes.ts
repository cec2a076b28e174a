import { Type } from 'typebox';
import { orderView, quoteView } from '../../domain/account-views.ts';
import type { Clock } from '../../domain/clock.ts';
import { ORDER_STATUSES } from '../../domain/lifecycle.ts';
import { ACCOUNT_TYPES } from '../../domain/principal.ts';
import { publicOrderView } from '../../domain/public-views.ts';
import type { OrderService } from '../../services/order-service.ts';
import type { FerryApp } from '../app-types.ts';
import { principalOf, requireAccount } from '../auth-hooks.ts';
import {
  ACCOUNT_SECURITY,
  envelope,
  errorResponses,
  IdSchema,
  PageFields,
  PaginationQuery,
} from '../schemas/common-schemas.ts';
import { OrderSchema, PublicOrderSchema, TypedDataSchema } from '../schemas/resource-schemas.ts';

export function registerOrderRoutes(
  app: FerryApp,
  { orders, clock }: { orders: OrderService; clock: Clock },
) {
  app.get(
    '/api/v1/orders',
    {
      preValidation: requireAccount('moneyMover', 'liquidityProvider'),
      schema: {
        tags: ['Orders'],
        operationId: 'listOrders',
        summary: 'List your orders',
        description:
          "Orders of the calling account, newest first. `accountType` picks the side the caller is on (default: the account's own type).",
        security: ACCOUNT_SECURITY,
        querystring: Type.Object(
          {
            ...PaginationQuery,
            status: Type.Optional(Type.Enum(ORDER_STATUSES)),
            accountType: Type.Optional(Type.Enum(ACCOUNT_TYPES)),
            includeQuote: Type.Boolean({
              default: false,
              description: "Embed each order's quote as `quote`",
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: envelope(
            Type.Object({
              orders: Type.Array(OrderSchema),
              ...PageFields,
            }),
          ),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { page, pageSize, status, accountType, includeQuote } = request.query;
      const result = await orders.list(
        principal,
        { status: status ?? null, accountType: accountType ?? null, includeQuote },
        { page, pageSize },
      );
      const now = clock.now();
      const views = [];
      for (const order of result.page.items) {
        const withQuote = result.quotes.get(order.id);
        views.push(
          withQuote
            ? { ...orderView(order, principal), quote: quoteView(withQuote.quote, withQuote.request, now) }
            : orderView(order, principal),
        );
      }
      return {
        message: 'orders',
        data: {
          orders: views,
          total: result.page.total,
          page: result.page.page,
          pageSize: result.page.pageSize,
          totalPages: result.page.totalPages,
        },
      };
    },
  );

  registerOpenOrdersRoute(app, orders);

  app.get(
    '/api/v1/orders/:id',
    {
      preValidation: requireAccount('moneyMover', 'liquidityProvider'),
      schema: {
        tags: ['Orders'],
        operationId: 'getOrder',
        summary: 'Get an order',
        description: "One of the caller's orders. Another account's order answers 404 ORDER_NOT_FOUND.",
        security: ACCOUNT_SECURITY,
        params: Type.Object({ id: IdSchema }),
        response: { 200: envelope(OrderSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const order = await orders.get(principal, request.params.id);
      return { message: 'order', data: orderView(order, principal) };
    },
  );
}

/** GET /api/v1/open-orders: what any liquidity provider may fill now. */
function registerOpenOrdersRoute(app: FerryApp, orders: OrderService) {
  app.get(
    '/api/v1/open-orders',
    {
      preValidation: requireAccount('liquidityProvider'),
      schema: {
        tags: ['Orders'],
        operationId: 'listOpenOrders',
        summary: 'List orders open to any filler',
        description:
          "Deposited orders whose quoted liquidity provider's exclusivity lapsed unfilled (each was announced by an " +
          '`order.exclusivityLapsed` event): any liquidity provider may now fill one until its `fillDeadline`, and the ' +
          'escrow pays whoever filled. Each comes with its signed typed data, the order a fill takes (FerryApp.fill, ' +
          'fillAndProve, or the ERC-7683 fill). Orders wallets opened on chain (`source` `onchain`) naming no filler are ' +
          'listed from when Ferry reads them. Newest first.',
        security: ACCOUNT_SECURITY,
        querystring: Type.Object({ ...PaginationQuery }, { additionalProperties: false }),
        response: {
          200: envelope(
            Type.Object({
              openOrders: Type.Array(Type.Object({ order: PublicOrderSchema, typedData: TypedDataSchema })),
              ...PageFields,
            }),
          ),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const { page, pageSize } = request.query;
      const result = await orders.listOpen({ page, pageSize });
      const openOrders = [];
      for (const order of result.page.items) {
        const quoted = result.quotes.get(order.id);
        if (quoted) openOrders.push({ order: publicOrderView(order), typedData: quoted.quote.typedData });
      }
      return {
        message: 'open orders',
        data: {
          openOrders,
          total: result.page.total,
          page: result.page.page,
          pageSize: result.page.pageSize,
          totalPages: result.page.totalPages,
        },
      };
    },
  );
}
