import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.ts';
import { formatBytes, formatDuration } from '../domain/limit-text.ts';
import { etagOf } from './conditional-get.ts';
import { DOCS_THEME } from './docs-theme.ts';
import './request-context.ts';

/**
 * The OpenAPI 3.1 document is generated from the very TypeBox schemas that validate requests,
 * so the reference cannot drift from the behaviour.
 */
export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  const { rateLimits, signIn } = config;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ferry API',
        version: '1.0.0',
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Cross-chain stablecoin swaps: quote requests, competing quotes, EIP-712 signed orders, escrow settlement. ' +
          'Errors always have the body `{error, code, details: [{path, message}]}`. ' +
          `Rate limits: ${rateLimits.apiKey}/min per API key, ${rateLimits.session}/min per session, ${rateLimits.ip}/min per IP for anonymous calls, and ${signIn.perIpPerMinute} sign-ins ` +
          `(POST /auth/verify) per minute per IP and ${signIn.perAddressPerMinute} per address. An account's API keys and sessions share one ` +
          'request counter (refused past the limit of the credential used) and one set of stream slots. Every response carries RateLimit-Limit, RateLimit-Remaining and ' +
          'RateLimit-Reset, and a 429 adds Retry-After. ' +
          `POST requests accept an Idempotency-Key header (kept ${formatDuration(config.idempotencyTtlSeconds)}; same key and body replays the stored response, ` +
          'same key with another body is 409 IDEMPOTENCY_KEY_REUSED; ignored on /auth/*, whose answers hold ' +
          `credentials). Request bodies over ${formatBytes(config.bodyLimitBytes)} are 413.`,
      },
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'x-api-key',
            description: 'Issued by `ferry keys create`',
          },
          session: {
            type: 'http',
            scheme: 'bearer',
            description: 'Token from POST /auth/verify (Sign-In with Ethereum)',
          },
        },
      },
      // Relative: the API is served from the origin that serves this document, whatever host or port that is.
      servers: [{ url: '/', description: 'The Ferry instance serving this document' }],
      tags: [
        {
          name: 'Quote requests',
          description:
            'A money mover asks for quotes on a swap between two chains; liquidity providers list the open ones.',
        },
        {
          name: 'Quotes',
          description: 'Liquidity providers quote open requests; the money mover accepts one.',
        },
        {
          name: 'Swaps',
          description:
            'The money mover submits the signed EIP-712 order; Ferry escrows, watches the fill, settles.',
        },
        {
          name: 'Orders',
          description: 'Orders of your account, with their settlement status and transactions.',
        },
        { name: 'Accounts', description: 'The account behind the API key or session.' },
        {
          name: 'Webhooks',
          description: "Signed HTTP POSTs of the account's events to its own endpoints (docs/webhooks.md).",
        },
        {
          name: 'Public',
          description: 'Protocol activity, chains and live events, readable without credentials.',
        },
        { name: 'Auth', description: 'Sign-In with Ethereum (EIP-4361) sessions for money movers.' },
        {
          name: 'Health',
          description: 'Liveness and readiness probes for load balancers and orchestrators.',
        },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // The reference's pages are validated like the explorer's (ETag, 304); its static files by the file server.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, conditionalGet: true };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true }, theme: DOCS_THEME });
}

/** The OpenAPI document, serialised once (about 100 KB) and answered with its ETag; counted in the rate limit. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  let document: { body: string; etag: string } | null = null;
  app.get(
    '/openapi.json',
    { schema: { hide: true }, config: { conditionalGet: true } },
    (_request, reply) => {
      if (!document) {
        const body = JSON.stringify(app.swagger());
        document = { body, etag: etagOf(body) };
      }
      return reply.header('etag', document.etag).type('application/json; charset=utf-8').send(document.body);
    },
  );
}
