import { Type } from 'typebox';
import { normalizeAddress } from '../../domain/address.ts';
import { fieldError } from '../../domain/app-error.ts';
import { parseOrderSearch } from '../../domain/order-search.ts';
import { publicOrderView } from '../../domain/public-views.ts';
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
import { PublicOrderSchema } from '../schemas/resource-schemas.ts';

/** GET /api/public/orders and GET /api/public/orders/{id}: everyone's orders, public view, for the explorer. */
export function registerPublicOrderRoutes(app: FerryApp, orders: OrderService): void {
  registerOrderList(app, orders);
  registerOrderDetail(app, orders);
}

/** The listing with its search (`q`), its pages serialized once per event version. */
function registerOrderList(app: FerryApp, orders: OrderService): void {
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
          'Protocol activity, newest first, without authentication. `q` searches by its shape: an address ' +
          '(0x + 40 hex digits) matches the offerer, the recipient or the fill address; 0x + 64 hex digits ' +
          'matches the blockchain order id or any of the three transaction hashes (deposit, fill, settlement or ' +
          'refund); anything else is an order id. `address` (older) matches offerer or recipient only. Give one ' +
          'of them at most: both, or a value of no known shape, is 400 with the path `query.q`. A search that ' +
          'matches nothing answers an empty page.',
        querystring: Type.Object(
          {
            ...PaginationQuery,
            address: Type.Optional(AddressSchema),
            q: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 128,
                description:
                  'Order id, blockchain order id, transaction hash (0x + 64 hex) or address (0x + 40 hex)',
                examples: ['0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
              }),
            ),
          },
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
      const { page, pageSize, address, q } = request.query;
      if (q !== undefined && address !== undefined) {
        throw fieldError('VALIDATION_ERROR', 'query.q', 'give either q or address, not both');
      }
      const search =
        q !== undefined
          ? parseOrderSearch(q, 'query.q')
          : address !== undefined
            ? { kind: 'address' as const, address: normalizeAddress(address, 'query.address') }
            : null;
      const result = await orders.listPublic(search, { page, pageSize }, { matchFiller: q !== undefined });
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
}

/** One order with its timeline. */
function registerOrderDetail(app: FerryApp, orders: OrderService): void {
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
}
