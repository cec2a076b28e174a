import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/chain-registry.ts';
import { normalizeAddress } from '../../domain/address.ts';
import type { Clock } from '../../domain/clock.ts';
import { publicOrderView, publicQuoteView } from '../../domain/public-views.ts';
import { eventWire } from '../../events/stream-event.ts';
import type { OrderService } from '../../services/order-service.ts';
import type { FerryApp } from '../app-types.ts';
import {
  AddressSchema,
  errorResponses,
  IdSchema,
  PageFields,
  PaginationQuery,
  PUBLIC_SECURITY,
  TimestampSchema,
} from '../schemas/common-schemas.ts';
import { PublicOrderSchema, PublicQuoteSchema } from '../schemas/resource-schemas.ts';

const ChainViewSchema = Type.Object({
  name: Type.String(),
  chainId: Type.Integer(),
  escrow: AddressSchema,
  fill: AddressSchema,
  contracts: Type.Object({
    escrow: AddressSchema,
    fill: AddressSchema,
    messenger: Type.Union([AddressSchema, Type.Null()]),
  }),
  confirmations: Type.Integer(),
  explorerUrl: Type.Optional(Type.String()),
  rpcUrl: Type.Optional(Type.String()),
  tokens: Type.Array(
    Type.Object({
      symbol: Type.String(),
      address: AddressSchema,
      decimals: Type.Integer(),
      minAmount: Type.String({
        description:
          'Smallest inputAmount accepted with this token as input, in base units (smaller: 400 AMOUNT_TOO_SMALL)',
      }),
    }),
  ),
});

export function registerPublicRoutes(
  app: FerryApp,
  { orders, registry, clock }: { orders: OrderService; registry: ChainRegistry; clock: Clock },
) {
  const serializedPages = new WeakMap<object, Buffer>();
  app.get(
    '/api/public/orders',
    {
      schema: {
        tags: ['Public'],
        operationId: 'listPublicOrders',
        security: PUBLIC_SECURITY,
        summary: 'Recent orders (public)',
        description:
          'Protocol activity, newest first, without authentication. `address` matches offerer or recipient.',
        querystring: Type.Object(
          { ...PaginationQuery, address: Type.Optional(AddressSchema) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            data: Type.Object({ orders: Type.Array(PublicOrderSchema) }),
            ...PageFields,
          }),
          ...errorResponses(400, 429),
        },
      },
    },
    async (request, reply) => {
      const { page, pageSize, address } = request.query;
      const filter = address === undefined ? null : normalizeAddress(address, 'query.address');
      const result = await orders.listPublic(filter, { page, pageSize });
      // listPublic returns the same page object until the next event: its body is serialized and UTF-8 encoded
      // once, then reused (a page is ~25 KB: encoding it for every response cost more than the rest of the route).
      let body = serializedPages.get(result);
      if (body === undefined) {
        body = Buffer.from(
          String(
            reply.serialize({
              status: 'success' as const,
              data: { orders: result.items.map(publicOrderView) },
              total: result.total,
              page: result.page,
              pageSize: result.pageSize,
              totalPages: result.totalPages,
            }),
          ),
        );
        serializedPages.set(result, body);
      }
      // A Buffer is sent as it is: it was serialized with this route's response schema.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/api/public/orders/:id',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getPublicOrder',
        security: PUBLIC_SECURITY,
        summary: 'One order (public)',
        description:
          'Any order by id, public view only, with its timeline: the `order.created` and `order.updated` events of ' +
          'the event log, oldest first, each carrying the order as it was then (status and tx hashes). ' +
          'An unknown id is 404 ORDER_NOT_FOUND.',
        params: Type.Object({ id: IdSchema }),
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            data: Type.Object({
              order: PublicOrderSchema,
              events: Type.Array(
                Type.Object({
                  id: Type.Integer({ description: 'Event id, as on the streams' }),
                  type: Type.Union([Type.Literal('order.created'), Type.Literal('order.updated')]),
                  occurredAt: TimestampSchema,
                  data: PublicOrderSchema,
                }),
              ),
            }),
          }),
          ...errorResponses(400, 404, 429),
        },
      },
    },
    async (request) => {
      const { order, events } = await orders.getPublic(request.params.id);
      return {
        status: 'success' as const,
        data: {
          order: publicOrderView(order),
          events: events.map(
            (event) =>
              eventWire(event) as {
                id: number;
                type: 'order.created' | 'order.updated';
                occurredAt: string;
                data: ReturnType<typeof publicOrderView>;
              },
          ),
        },
      };
    },
  );

  app.get(
    '/api/public/quotes/recent',
    {
      schema: {
        tags: ['Public'],
        operationId: 'listRecentQuotes',
        security: PUBLIC_SECURITY,
        summary: 'Latest quotes (public)',
        description: 'The newest quotes, amounts and chains only: no account ids.',
        querystring: Type.Object(
          { limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            data: Type.Object({ quotes: Type.Array(PublicQuoteSchema) }),
          }),
          ...errorResponses(400, 429),
        },
      },
    },
    async (request) => {
      const recent = await orders.recentQuotes(request.query.limit);
      const now = clock.now();
      return {
        status: 'success' as const,
        data: { quotes: recent.map(({ quote, request: qr }) => publicQuoteView(quote, qr, now)) },
      };
    },
  );

  app.get(
    '/api/public/chains',
    {
      schema: {
        tags: ['Public'],
        operationId: 'listChains',
        security: PUBLIC_SECURITY,
        summary: 'Supported chains and tokens',
        description:
          'Every chain of the registry with its escrow (approve it before swapping) and fill contract, and its tokens. rpcUrl is shown only when public.',
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            data: Type.Object({ chains: Type.Array(ChainViewSchema) }),
          }),
          ...errorResponses(429),
        },
      },
    },
    async () => ({
      status: 'success' as const,
      data: {
        chains: registry.chains.map((c) => ({
          name: c.name,
          chainId: c.chainId,
          escrow: c.contracts.escrow,
          fill: c.contracts.fill,
          contracts: c.contracts,
          confirmations: c.confirmations,
          ...(c.explorerUrl ? { explorerUrl: c.explorerUrl } : {}),
          ...(c.rpcUrlPublic ? { rpcUrl: c.rpcUrl } : {}),
          tokens: c.tokens.map((t) => ({ ...t, minAmount: t.minAmount.toString() })),
        })),
      },
    }),
  );
}
