import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { MetricsAccess } from '../config/metrics-access.ts';
import { AppError } from '../domain/app-error.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { sendError } from './error-handler.ts';
import { requestLogger } from './log-redaction.ts';
import { registerMetricsRoute } from './metrics-route.ts';
import { DebugRequestLog } from './request-log.ts';

/**
 * The worker-only process's one route, `GET /metrics` on METRICS_PORT: the same route, token check and error
 * body as on the API, without the API's other routes.
 */
export async function listenForMetrics(options: {
  metrics: FerryMetrics;
  access: MetricsAccess;
  host: string;
  port: number;
  log: FastifyBaseLogger;
}) {
  const app = Fastify({ loggerInstance: requestLogger(options.log), logController: new DebugRequestLog() });
  // The API's error handling needs its rate limiter; this server answers only its token refusal and faults.
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof AppError) return sendError(reply, error);
    request.log.error({ err: error }, 'metrics scrape failed');
    return sendError(reply, new AppError('INTERNAL_ERROR', 'internal error'));
  });
  registerMetricsRoute(app, { metrics: options.metrics, access: options.access });
  const address = await app.listen({ host: options.host, port: options.port });
  return { address, close: () => app.close() };
}
