import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { etagOf } from './conditional-get.ts';
import './request-context.ts';

/**
 * The OpenAPI 3.1 document is generated from the very TypeBox schemas that validate requests,
 * so the reference cannot drift from the behaviour.
 */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ferry API',
        version: '1.0.0',
        description:
          'Cross-chain stablecoin swaps: quote requests, competing quotes, EIP-712 signed orders, escrow settlement. ' +
          'Errors always have the body `{error, code, details: [{path, message}]}`. ' +
          'Rate limits: 100/min per API key, 60/min per session, 120/min per IP for anonymous calls, and 10 sign-ins ' +
          '(POST /auth/verify) per minute per IP; every response carries RateLimit-Limit, RateLimit-Remaining and ' +
          'RateLimit-Reset, and a 429 adds Retry-After. ' +
          'POST requests accept an Idempotency-Key header (kept 24 h; same key and body replays the stored response, ' +
          'same key with another body is 409 IDEMPOTENCY_KEY_REUSED; ignored on /auth/*, whose answers hold ' +
          'credentials). Request bodies over 64 KiB are 413.',
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
      tags: [
        { name: 'Quote requests' },
        { name: 'Quotes' },
        { name: 'Swaps' },
        { name: 'Orders' },
        { name: 'Accounts' },
        { name: 'Public' },
        { name: 'Auth' },
        { name: 'Health' },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // The reference's pages are validated like the explorer's (ETag, 304); its static files by the file server.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, conditionalGet: true };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
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
