import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { Config } from '../config/config.ts';
import { requireMetricsAccess } from '../config/metrics-access.ts';
import { AppError } from '../domain/app-error.ts';
import type { Clock } from '../domain/clock.ts';
import { formatBytes } from '../domain/limit-text.ts';
import type { Realtime } from '../events/realtime.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import type { AccountService } from '../services/account-service.ts';
import type { AuthService } from '../services/auth-service.ts';
import type { OrderService } from '../services/order-service.ts';
import type { QuoteRequestService } from '../services/quote-request-service.ts';
import type { QuoteService } from '../services/quote-service.ts';
import type { SwapService } from '../services/swap-service.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import type { WebhookService } from '../webhooks/webhook-service.ts';
import type { FerryApp } from './app-types.ts';
import { installAuthentication } from './auth-hooks.ts';
import { installConditionalGet } from './conditional-get.ts';
import { installErrorHandling, sendError } from './error-handler.ts';
import { installIdempotency } from './idempotency.ts';
import { acceptEmptyJsonBodies } from './json-body.ts';
import { requestLogger } from './log-redaction.ts';
import { installHttpMetrics, registerMetricsRoute } from './metrics-route.ts';
import { installOpenApi, registerOpenApiRoute } from './openapi.ts';
import { installRateLimit } from './rate-limit.ts';
import { DebugRequestLog } from './request-log.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { registerAuthRoutes } from './routes/auth-routes.ts';
import { registerExplorerRoutes } from './routes/explorer-routes.ts';
import { registerGuidesRoutes } from './routes/guides-routes.ts';
import { type RelayerWarningView, registerHealthRoutes } from './routes/health-routes.ts';
import { registerOrderRoutes } from './routes/order-routes.ts';
import { registerPublicRoutes } from './routes/public-routes.ts';
import { registerQuoteRequestRoutes } from './routes/quote-request-routes.ts';
import { registerQuoteRoutes } from './routes/quote-routes.ts';
import { registerStreamRoutes } from './routes/stream-routes.ts';
import { registerSwapRoutes } from './routes/swap-routes.ts';
import { registerWebhookRoutes } from './routes/webhook-routes.ts';
import { ErrorBodySchema } from './schemas/common-schemas.ts';
import { createValidatorCompiler } from './validator-compiler.ts';

export interface ServerDeps {
  readonly config: Config;
  readonly log: FastifyBaseLogger;
  readonly clock: Clock;
  readonly database: FerryDatabase;
  readonly registry: ChainRegistry;
  readonly auth: AuthService;
  readonly quoteRequests: QuoteRequestService;
  readonly quotes: QuoteService;
  readonly swaps: SwapService;
  readonly orders: OrderService;
  readonly accounts: AccountService;
  readonly webhooks: WebhookService;
  readonly isDraining: () => boolean;
  /** Chains whose settlement relayer is below its balance floor (empty where this process runs no worker). */
  readonly relayerWarnings: () => readonly RelayerWarningView[];
  /** Event fan-out, stream limits and Redis (when configured) for the SSE and WebSocket streams. */
  readonly realtime: Realtime;
  /** This process's metrics registry, served at GET /metrics. */
  readonly metrics: FerryMetrics;
}

/** Fastify's form of TRUST_PROXY: no proxy, the last N hops, or the proxies' addresses/CIDRs. */
function trustedProxies(trust: Config['trustProxy']) {
  if (typeof trust === 'object') return [...trust];
  // The hop right before this server is hop 0: with N trusted hops, the (N+1)th address from the right is the client.
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return false;
}

/** Builds the HTTP server with every route, hook and the OpenAPI document; does not listen. */
export async function createServer(deps: ServerDeps): Promise<FerryApp> {
  const app = Fastify({
    loggerInstance: requestLogger(deps.log),
    bodyLimit: deps.config.bodyLimitBytes,
    http: { maxHeaderSize: deps.config.headerLimitBytes },
    trustProxy: trustedProxies(deps.config.trustProxy),
    return503OnClosing: true,
    logController: new DebugRequestLog(),
    forceCloseConnections: 'idle',
    // The router refuses malformed percent-encoding and over-long path parameters before any hook or the
    // error handler runs; answer those with the documented error body too (not Fastify's own, echoing the URL).
    frameworkErrors: (error, _request, reply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is too long' : 'the URL is malformed';
      sendError(reply, new AppError('VALIDATION_ERROR', message, [{ path: 'url', message }]));
    },
    // Node's HTTP parser refuses some requests before Fastify routes them (request line and headers over
    // HEADER_LIMIT_BYTES, malformed HTTP): answer those with the documented error body as well, not Fastify's default one.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const overflow = error.code === 'HPE_HEADER_OVERFLOW';
      const message = overflow
        ? `the URL and headers are larger than ${formatBytes(deps.config.headerLimitBytes)}`
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'the request was not received in time'
          : 'the request is not valid HTTP';
      const body = JSON.stringify({
        error: message,
        code: 'VALIDATION_ERROR',
        details: [{ path: overflow ? 'headers' : 'request', message }],
      });
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 400 Bad Request\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Bodies are JSON only: without this, Fastify's built-in text/plain parser turns a text body into a string (400, not 415).
  app.removeContentTypeParser('text/plain');
  acceptEmptyJsonBodies(app);
  app.setValidatorCompiler(createValidatorCompiler());
  app.addSchema(ErrorBodySchema);

  installAuthentication(app, deps.auth);
  installHttpMetrics(app, deps.metrics);
  // Before the OpenAPI plugin: the rate limit applies to routes registered after it, /docs included.
  await installRateLimit(app, deps.config, deps.realtime.redis, deps.metrics);
  await installOpenApi(app, deps.config);
  installErrorHandling(app);
  installConditionalGet(app);
  installIdempotency(app, deps);

  registerHealthRoutes(app, deps);
  registerMetricsRoute(app, { metrics: deps.metrics, access: requireMetricsAccess(deps.config, 'api') });
  registerOpenApiRoute(app);
  registerAuthRoutes(app, deps);
  registerQuoteRequestRoutes(app, deps);
  registerQuoteRoutes(app, deps);
  registerSwapRoutes(app, deps);
  registerOrderRoutes(app, deps);
  registerAccountRoutes(app, deps);
  registerWebhookRoutes(app, deps);
  registerPublicRoutes(app, deps);
  registerExplorerRoutes(app);
  registerGuidesRoutes(app);
  await registerStreamRoutes(app, deps);
  return app;
}
