import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MetricsAccess } from '../config/metrics-access.ts';
import { AppError } from '../domain/app-error.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';

/**
 * Counts every answered request by its route pattern (`/api/v1/orders/:id`, never the raw URL, so the label
 * set stays bounded); a request that matched no route is `unmatched`.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: FerryMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}

/** Digests have one length whatever was sent, so the comparison takes the same time for every guess. */
const digest = (text: string) => createHash('sha256').update(text).digest();

function checkToken(request: FastifyRequest, token: string): void {
  const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
  if (timingSafeEqual(digest(presented), digest(token))) return;
  throw new AppError('UNAUTHORIZED', 'the metrics endpoint needs Authorization: Bearer <METRICS_TOKEN>', [
    { path: 'headers.authorization', message: presented === '' ? 'is required' : 'is not the metrics token' },
  ]);
}

/**
 * `GET /metrics` in the Prometheus text format (docs/metrics.md). An operations route: outside the OpenAPI
 * document and the rate limit (a scraper polls it); it needs the METRICS_TOKEN bearer unless `access` is open.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  { metrics, access }: { metrics: FerryMetrics; access: MetricsAccess },
): void {
  app.get('/metrics', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
    if ('token' in access) checkToken(request, access.token);
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
}
