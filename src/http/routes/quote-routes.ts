import { Type } from 'typebox';
import type { Config } from '../../config/config.ts';
import { quoteEnvelope, quoteRequestView, quoteView } from '../../domain/account-views.ts';
import { fieldError } from '../../domain/app-error.ts';
import type { Clock } from '../../domain/clock.ts';
import { QUOTE_STATUSES } from '../../domain/lifecycle.ts';
import type { QuoteService } from '../../services/quote-service.ts';
import type { FerryApp } from '../app-types.ts';
import { principalOf, requireAccount } from '../auth-hooks.ts';
import {
  ACCOUNT_SECURITY,
  AmountSchema,
  envelope,
  errorResponses,
  IdSchema,
  PageFields,
  PaginationQuery,
} from '../schemas/common-schemas.ts';
import { QuoteEnvelopeSchema, QuoteRequestSchema, QuoteSchema } from '../schemas/resource-schemas.ts';

interface QuoteRouteDeps {
  readonly quotes: QuoteService;
  readonly clock: Clock;
  readonly config: Pick<Config, 'quoteValiditySeconds'>;
}

export function registerQuoteRoutes(app: FerryApp, deps: QuoteRouteDeps) {
  registerCreateQuote(app, deps);
  registerListQuotes(app, deps);
  registerGetQuote(app, deps);
  registerAcceptQuote(app, deps);
}

function registerCreateQuote(app: FerryApp, { quotes, clock, config }: QuoteRouteDeps): void {
  app.post(
    '/api/v1/quotes',
    {
      preValidation: requireAccount('liquidityProvider'),
      schema: {
        tags: ['Quotes'],
        operationId: 'createQuote',
        summary: 'Quote an open request',
        description:
          "A liquidity provider offers outputAmount for an open request. The response carries the EIP-712 typed data the offerer will sign; its deadlines count from the chains' clocks. One active quote per provider per request. outputAmount, in the input token's decimals, may exceed inputAmount by at most MAX_QUOTE_PREMIUM_BPS (400 VALIDATION_ERROR), and the provider's fill address must hold it on the output chain on top of what its other active quotes, accepted quotes not yet swapped and unfilled orders there in that token already promise (422 INSUFFICIENT_BALANCE, same BALANCE_CACHE_MS rule as the offerer's check for the balance).",
        security: ACCOUNT_SECURITY,
        body: Type.Object(
          {
            quoteRequestId: IdSchema,
            outputAmount: AmountSchema,
            validFor: Type.Optional(
              Type.Integer({
                minimum: 10,
                maximum: 600,
                description: `Validity in seconds (default ${config.quoteValiditySeconds}, QUOTE_VALIDITY_SECONDS)`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: envelope(QuoteEnvelopeSchema),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const { quote, request: qr } = await quotes.create(principalOf(request), request.body);
      reply.code(201);
      return { message: 'quote created', data: quoteEnvelope(quote, qr, clock.now()) };
    },
  );
}

function registerListQuotes(app: FerryApp, { quotes, clock }: QuoteRouteDeps): void {
  app.get(
    '/api/v1/quotes',
    {
      preValidation: requireAccount('moneyMover', 'liquidityProvider'),
      schema: {
        tags: ['Quotes'],
        operationId: 'listQuotes',
        summary: 'List quotes',
        description:
          'A money mover sees quotes on its own requests; a liquidity provider sees its own quotes. Defaults to active quotes.',
        security: ACCOUNT_SECURITY,
        querystring: Type.Object(
          {
            ...PaginationQuery,
            quoteRequestId: Type.Optional(IdSchema),
            status: Type.Enum(QUOTE_STATUSES, { default: 'active' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: envelope(
            Type.Object({
              quotes: Type.Array(QuoteSchema),
              ...PageFields,
            }),
          ),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const { page, pageSize, quoteRequestId, status } = request.query;
      const result = await quotes.list(
        principalOf(request),
        { quoteRequestId: quoteRequestId ?? null, status },
        { page, pageSize },
      );
      const now = clock.now();
      return {
        message: 'quotes',
        data: {
          quotes: result.items.map(({ quote, request: qr }) => quoteView(quote, qr, now)),
          total: result.total,
          page: result.page,
          pageSize: result.pageSize,
          totalPages: result.totalPages,
        },
      };
    },
  );
}

function registerGetQuote(app: FerryApp, { quotes, clock }: QuoteRouteDeps): void {
  app.get(
    '/api/v1/quotes/:id',
    {
      preValidation: requireAccount('moneyMover', 'liquidityProvider'),
      schema: {
        tags: ['Quotes'],
        operationId: 'getQuote',
        summary: 'Get a quote',
        description: 'The quote envelope, with the typed data to sign.',
        security: ACCOUNT_SECURITY,
        params: Type.Object({ id: IdSchema }),
        response: { 200: envelope(QuoteEnvelopeSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { quote, request: qr } = await quotes.get(principalOf(request), request.params.id);
      return { message: 'quote', data: quoteEnvelope(quote, qr, clock.now()) };
    },
  );
}

function registerAcceptQuote(app: FerryApp, { quotes, clock }: QuoteRouteDeps): void {
  app.post(
    '/api/v1/quotes/:id/accept',
    {
      preValidation: [
        requireAccount('moneyMover'),
        // The body is optional: a POST without one is validated as `{}`, not refused as "must be object".
        async (request) => {
          if (request.body === undefined) request.body = {};
        },
      ],
      schema: {
        tags: ['Quotes'],
        operationId: 'acceptQuote',
        summary: 'Accept a quote',
        description:
          'Accepts the quote `id` and declines every other active quote of its request, atomically. The body may repeat the id as `quoteId`; it must then equal the path id. The quote then expires at its endTime unless executed through POST /api/v1/swaps.',
        security: ACCOUNT_SECURITY,
        params: Type.Object({ id: IdSchema }),
        body: Type.Optional(
          Type.Object({ quoteId: Type.Optional(IdSchema) }, { additionalProperties: false }),
        ),
        response: {
          200: envelope(
            Type.Object({
              acceptedQuote: QuoteSchema,
              quoteRequest: QuoteRequestSchema,
              declinedQuotes: Type.Array(QuoteSchema),
              declinedCount: Type.Integer(),
            }),
          ),
          ...errorResponses(400, 401, 403, 404, 409, 410, 429),
        },
      },
    },
    async (request) => {
      const bodyQuoteId = request.body?.quoteId;
      if (bodyQuoteId !== undefined && bodyQuoteId !== request.params.id) {
        throw fieldError('VALIDATION_ERROR', 'body.quoteId', 'must equal the quote id in the path');
      }
      const outcome = await quotes.accept(principalOf(request), request.params.id);
      const now = clock.now();
      return {
        message: 'quote accepted',
        data: {
          acceptedQuote: quoteView(outcome.accepted, outcome.request, now),
          quoteRequest: quoteRequestView(outcome.request, now),
          declinedQuotes: outcome.declined.map((q) => quoteView(q, outcome.request, now)),
          declinedCount: outcome.declined.length,
        },
      };
    },
  );
}
