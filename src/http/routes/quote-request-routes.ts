import { Type } from 'typebox';
import { quoteRequestView } from '../../domain/account-views.ts';
import type { Clock } from '../../domain/clock.ts';
import { QUOTE_REQUEST_STATUSES } from '../../domain/lifecycle.ts';
import type { QuoteRequestService } from '../../services/quote-request-service.ts';
import type { FerryApp } from '../app-types.ts';
import { principalOf, requireAccount } from '../auth-hooks.ts';
import {
  ACCOUNT_SECURITY,
  AddressSchema,
  AmountSchema,
  ChainNameSchema,
  envelope,
  errorResponses,
  IdSchema,
  PageFields,
  PaginationQuery,
} from '../schemas/common-schemas.ts';
import { QuoteRequestSchema } from '../schemas/resource-schemas.ts';

const CreatedSchema = envelope(
  Type.Object({
    quoteId: Type.String({
      description: 'The quote request id (name kept from the interface specification)',
    }),
    quoteRequestId: Type.String(),
    quoteRequest: QuoteRequestSchema,
  }),
);

export function registerQuoteRequestRoutes(
  app: FerryApp,
  deps: { quoteRequests: QuoteRequestService; clock: Clock },
) {
  const { quoteRequests, clock } = deps;

  app.get(
    '/api/v1/quote-requests',
    {
      preValidation: requireAccount('moneyMover', 'liquidityProvider'),
      schema: {
        tags: ['Quote requests'],
        operationId: 'listQuoteRequests',
        summary: 'List quote requests',
        description:
          'Newest first. A money mover sees its own requests; a liquidity provider sees every open request (pass `status` to see others).',
        security: ACCOUNT_SECURITY,
        querystring: Type.Object(
          {
            ...PaginationQuery,
            timeWindow: Type.Integer({
              minimum: 1,
              maximum: 30 * 86_400,
              default: 30,
              description: 'Only requests created within this many seconds',
            }),
            status: Type.Optional(Type.Enum(QUOTE_REQUEST_STATUSES)),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            message: Type.String(),
            data: Type.Array(QuoteRequestSchema),
            ...PageFields,
          }),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const { page, pageSize, timeWindow, status } = request.query;
      const result = await quoteRequests.list(
        principalOf(request),
        { timeWindow, status: status ?? null },
        { page, pageSize },
      );
      const now = clock.now();
      return {
        message: 'quote requests',
        data: result.items.map((qr) => quoteRequestView(qr, now)),
        total: result.total,
        page: result.page,
        pageSize: result.pageSize,
        totalPages: result.totalPages,
      };
    },
  );

  app.post(
    '/api/v1/quote-requests',
    {
      preValidation: requireAccount('moneyMover'),
      schema: {
        tags: ['Quote requests'],
        operationId: 'createQuoteRequest',
        summary: 'Create a quote request',
        description:
          "Asks liquidity providers to quote a cross-chain swap. outputChain must be one of inputChain's outputChains in GET /api/public/chains (a settlement path; 400 INVALID_CHAIN at body.outputChain otherwise). The offerer must hold inputAmount of inputToken on inputChain on top of what its other open quote requests in that token ask for (422 INSUFFICIENT_BALANCE at body.inputAmount otherwise, also for requests sent at once; a reading that covered an earlier request of the same offerer may answer for BALANCE_CACHE_MS, 1 s by default, and the deposit checks on chain again). The request stays open for 120 s by default. inputAmount below the input token's minAmount (GET /api/public/chains) is 400 AMOUNT_TOO_SMALL; a recipient that is the zero address, a Ferry contract or a registry token is 400 VALIDATION_ERROR.",
        security: ACCOUNT_SECURITY,
        body: Type.Object(
          {
            recipient: AddressSchema,
            offerer: AddressSchema,
            inputToken: AddressSchema,
            outputToken: AddressSchema,
            inputAmount: AmountSchema,
            inputChain: ChainNameSchema,
            outputChain: ChainNameSchema,
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const qr = await quoteRequests.create(principalOf(request), request.body);
      reply.code(201);
      return {
        message: 'quote request created',
        data: { quoteId: qr.id, quoteRequestId: qr.id, quoteRequest: quoteRequestView(qr, clock.now()) },
      };
    },
  );

  app.get(
    '/api/v1/quote-requests/:id',
    {
      preValidation: requireAccount('moneyMover', 'liquidityProvider'),
      schema: {
        tags: ['Quote requests'],
        operationId: 'getQuoteRequest',
        summary: 'Get a quote request',
        description:
          'A money mover reads its own requests; a liquidity provider may read any request it could quote.',
        security: ACCOUNT_SECURITY,
        params: Type.Object({ id: IdSchema }),
        response: { 200: CreatedSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const qr = await quoteRequests.get(principalOf(request), request.params.id);
      return {
        message: 'quote request',
        data: { quoteId: qr.id, quoteRequestId: qr.id, quoteRequest: quoteRequestView(qr, clock.now()) },
      };
    },
  );
}
