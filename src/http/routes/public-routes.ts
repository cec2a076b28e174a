import { Type } from 'typebox';
import { type ChainRegistry, outputChainsOf } from '../../chains/chain-registry.ts';
import type { Clock } from '../../domain/clock.ts';
import { publicQuoteView } from '../../domain/public-views.ts';
import type { OrderService } from '../../services/order-service.ts';
import type { FerryApp } from '../app-types.ts';
import { AddressSchema, errorResponses, PUBLIC_SECURITY } from '../schemas/common-schemas.ts';
import { PublicQuoteSchema, PublicStatsSchema } from '../schemas/resource-schemas.ts';
import { registerPublicOrderRoutes } from './public-order-routes.ts';

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
  messenger: Type.Union([Type.Literal('layerzero'), Type.Literal('attester')], {
    description:
      "How fills are proven to this chain's escrow: a LayerZero message from Ferry's app on the output chain, or the operator's attester",
  }),
  outputChains: Type.Array(Type.String(), {
    description:
      'The chains an order from this chain may be filled on (a settlement path exists): a quote request to any other chain is 400 INVALID_CHAIN at body.outputChain. A LayerZero chain settles only fills on LayerZero chains; an attester chain settles fills on any chain.',
  }),
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
      permit: Type.Union([Type.Object({ name: Type.String(), version: Type.String() }), Type.Null()], {
        description:
          "The token's EIP-2612 domain (name, version; chain id = the chain's, verifyingContract = the token) when it takes permits: a swap may then carry a permit instead of an approve (POST /api/v1/swaps `permit`). Null otherwise.",
      }),
    }),
  ),
});

/** The public API (no authentication): orders, recent quotes, stats and chains, in that order in the document. */
export function registerPublicRoutes(
  app: FerryApp,
  {
    orders,
    registry,
    clock,
    config,
  }: {
    orders: OrderService;
    registry: ChainRegistry;
    clock: Clock;
    config: { readonly protocolFeeBps: number; readonly openWindowSeconds: number };
  },
) {
  registerPublicOrderRoutes(app, orders);
  registerRecentQuotes(app, orders, clock);
  registerStats(app, orders);
  registerChains(app, registry, config);
}

function registerRecentQuotes(app: FerryApp, orders: OrderService, clock: Clock): void {
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
}

function registerStats(app: FerryApp, orders: OrderService): void {
  app.get(
    '/api/public/stats',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getPublicStats',
        security: PUBLIC_SECURITY,
        summary: 'Order statistics (public)',
        description:
          'What the explorer charts, over the last `windowDays` days: the volume of completed orders per UTC day ' +
          'of completion, chain pair and input token (input amounts summed per token, in its base units: ' +
          'different tokens are never added together), the distribution of fill times (completedAt − createdAt ' +
          'of completed orders, in buckets), and the orders created in the window by status. Computed in the ' +
          'database and cached: at most 5 s behind while orders change, 60 s otherwise (`generatedAt`).',
        response: {
          200: Type.Object({ status: Type.Literal('success'), data: PublicStatsSchema }),
          ...errorResponses(429),
        },
      },
    },
    async () => ({ status: 'success' as const, data: await orders.publicStats() }),
  );
}

function registerChains(
  app: FerryApp,
  registry: ChainRegistry,
  {
    protocolFeeBps,
    openWindowSeconds,
  }: { readonly protocolFeeBps: number; readonly openWindowSeconds: number },
): void {
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
            data: Type.Object({
              chains: Type.Array(ChainViewSchema),
              protocolFeeBps: Type.Integer({
                minimum: 0,
                maximum: 100,
                description:
                  "Ferry's protocol fee in basis points of every order's input (PROTOCOL_FEE_BPS): an order's protocolFee is inputAmount × protocolFeeBps / 10000, rounded down. Liquidity providers price it into outputAmount.",
              }),
              openWindowSeconds: Type.Integer({
                minimum: 0,
                description:
                  "The swap's deposit window after a quote's endTime (OPEN_WINDOW_SECONDS). An accepted quote without an order counts against its liquidity provider's balance until endTime + openWindowSeconds (LP coverage, INSUFFICIENT_BALANCE): a provider reserving its quotes until then never counts less than Ferry does.",
              }),
            }),
          }),
          ...errorResponses(429),
        },
      },
    },
    async () => ({
      status: 'success' as const,
      data: {
        protocolFeeBps,
        openWindowSeconds,
        chains: registry.chains.map((c) => ({
          name: c.name,
          chainId: c.chainId,
          escrow: c.contracts.escrow,
          fill: c.contracts.fill,
          contracts: c.contracts,
          confirmations: c.confirmations,
          messenger: c.settlement.method,
          outputChains: outputChainsOf(registry, c),
          ...(c.explorerUrl ? { explorerUrl: c.explorerUrl } : {}),
          ...(c.rpcUrlPublic ? { rpcUrl: c.rpcUrl } : {}),
          tokens: c.tokens.map((t) => ({ ...t, minAmount: t.minAmount.toString() })),
        })),
      },
    }),
  );
}
