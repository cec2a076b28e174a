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
 * Whom a request counts against: the account, whichever of its keys or sessions it came with (each sign-in
 * opens a session, so counting per session would multiply one address's budget by its sessions); the client IP
 * when anonymous. The stream limits count the same way.
 */
export function budgetKey(request: FastifyRequest): string {
  return request.principal ? `acct:${request.principal.accountId}` : `ip:${request.ip}`;
}

/**
 * Fixed one-minute windows per account (one counter for all its API keys and sessions, refused past the limit
 * of the credential used), or per client IP when anonymous.
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
    keyGenerator: budgetKey,
    enableDraftSpec: true,
    errorResponseBuilder: (request, context) => {
      metrics.rateLimitRefusals.inc({ limit: 'request' });
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      const whose = request.principal
        ? 'this account (all its API keys and sessions together)'
        : 'this IP address';
      return new AppError(
        'RATE_LIMITED',
        `rate limit of ${context.max} requests per minute exceeded; retry in ${seconds} s`,
        [{ path: 'headers', message: `limit ${context.max} per minute for ${whose}` }],
      );
    },
  });
}

/**
 * The sign-in limit (`POST /auth/verify`): per client IP, on top of the general limit, because each sign-in
 * makes a session (and a new wallet an account). Counted in the same store as the general limits, so it holds
 * across instances with Redis.
 */
export function signInRateLimit(app: FastifyInstance, config: Config, metrics: FerryMetrics) {
  return refusePast(app, metrics, {
    max: config.signIn.perIpPerMinute,
    key: (request) => `signin:${request.ip}`,
    who: 'from one IP address',
    detail: { path: 'headers', whose: 'this IP address' },
  });
}

/**
 * The per-address sign-in limit, from whatever IPs: called once the signature has proved the address, so nobody
 * can spend another wallet's budget by naming it. `body.address` is then the signed-in address.
 */
export function signInAddressRateLimit(app: FastifyInstance, config: Config, metrics: FerryMetrics) {
  return refusePast(app, metrics, {
    max: config.signIn.perAddressPerMinute,
    key: (request) =>
      `signin-address:${String((request.body as { address?: unknown }).address).toLowerCase()}`,
    who: 'of one wallet address',
    detail: { path: 'body.address', whose: 'this wallet address, from any IP' },
  });
}

function refusePast(
  app: FastifyInstance,
  metrics: FerryMetrics,
  limit: {
    max: number;
    key: (request: FastifyRequest) => string;
    who: string;
    detail: { path: string; whose: string };
  },
) {
  const { max, who, detail } = limit;
  const check = app.createRateLimit({ max, timeWindow: 60_000, keyGenerator: limit.key });
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const result = await check(request);
    if (result.isAllowed || !result.isExceeded) return;
    metrics.rateLimitRefusals.inc({ limit: 'sign-in' });
    const seconds = Math.max(1, result.ttlInSeconds);
    reply.header('ratelimit-limit', max).header('ratelimit-remaining', 0).header('ratelimit-reset', seconds);
    throw new AppError(
      'RATE_LIMITED',
      `at most ${max} sign-ins per minute ${who}; retry in ${seconds} s`,
      [{ path: detail.path, message: `limit ${max} sign-ins per minute for ${detail.whose}` }],
      { 'retry-after': String(seconds) },
    );
  };
}
