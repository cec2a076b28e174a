import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import { AppError } from '../domain/app-error.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { redisWithLocalFallback } from './rate-limit-store.ts';
import './request-context.ts';

function limitOf(request: FastifyRequest, config: Config): number {
  if (!request.principal) return config.rateLimits.ip;
  return request.principal.method === 'apiKey' ? config.rateLimits.apiKey : config.rateLimits.session;
}

/**
 * Fixed one-minute windows per API key, per session, or per client IP when anonymous.
 * Every response carries the RateLimit-* headers; a refusal adds Retry-After. Without Redis the counts live in
 * this process.
 */
export async function installRateLimit(
  app: FastifyInstance,
  config: Config,
  redis: Redis | null,
  metrics: FerryMetrics,
): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    // With Redis the counters are shared by every instance; while Redis is down each instance counts alone.
    ...(redis ? { store: redisWithLocalFallback(redis, `${config.redisKeyPrefix}rl:`, app.log) } : {}),
    timeWindow: 60_000,
    max: (request) => limitOf(request, config),
    keyGenerator: (request) =>
      request.principal ? `cred:${request.principal.credentialId}` : `ip:${request.ip}`,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => {
      metrics.rateLimitRefusals.inc({ limit: 'request' });
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new AppError(
        'RATE_LIMITED',
        `rate limit of ${context.max} requests per minute exceeded; retry in ${seconds} s`,
        [{ path: 'headers', message: `limit ${context.max} per minute for this credential` }],
      );
    },
  });
}

/**
 * The sign-in limit (`POST /auth/verify`): per client IP, on top of the general limit, because each sign-in
 * makes a session (and a new wallet an account), each with budgets of its own. Counted in the same store as the
 * general limits, so it holds across instances with Redis.
 */
export function signInRateLimit(app: FastifyInstance, config: Config, metrics: FerryMetrics) {
  const max = config.signIn.perIpPerMinute;
  const check = app.createRateLimit({
    max,
    timeWindow: 60_000,
    keyGenerator: (request) => `signin:${request.ip}`,
  });
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const result = await check(request);
    if (result.isAllowed || !result.isExceeded) return;
    metrics.rateLimitRefusals.inc({ limit: 'sign-in' });
    const seconds = Math.max(1, result.ttlInSeconds);
    reply.header('ratelimit-limit', max).header('ratelimit-remaining', 0).header('ratelimit-reset', seconds);
    throw new AppError(
      'RATE_LIMITED',
      `at most ${max} sign-ins per minute from one IP address; retry in ${seconds} s`,
      [{ path: 'headers', message: `limit ${max} sign-ins per minute for this IP address` }],
      { 'retry-after': String(seconds) },
    );
  };
}
