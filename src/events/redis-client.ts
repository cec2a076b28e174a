import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { redactUrl } from '../config/config.ts';

/**
 * A Redis connection that fails fast instead of queueing: every Redis use in Ferry degrades (rate limits and
 * stream counts fall back to allowing, fan-out to polling) rather than making requests wait for Redis. Commands
 * issued in the same tick go out in one write (auto-pipelining): every request's rate-limit count is a command,
 * and one socket write per command was most of what PostgreSQL + Redis public reads spent over embedded ones.
 */
export function createRedisClient(url: string, log: FastifyBaseLogger, role: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  watchHealth(redis, url, log, role);
  return redis;
}

/** A subscriber connection: it may queue its SUBSCRIBE until connected, and resubscribes after reconnects. */
export function createRedisSubscriber(url: string, log: FastifyBaseLogger, role: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  watchHealth(redis, url, log, role);
  return redis;
}

/** Logs each change between reachable and unreachable once, not every reconnect attempt. */
function watchHealth(redis: Redis, url: string, log: FastifyBaseLogger, role: string): void {
  let healthy = true;
  redis.on('ready', () => {
    if (!healthy) log.info({ redis: redactUrl(url), role }, 'redis reachable again');
    healthy = true;
  });
  redis.on('error', (error: Error) => {
    if (healthy) log.warn({ redis: redactUrl(url), role, err: error }, 'redis unreachable; degrading');
    healthy = false;
  });
}

/** Connects, but lets Ferry start without Redis: the client keeps retrying in the background. */
export async function connectOrDegrade(redis: Redis): Promise<void> {
  try {
    await redis.connect();
  } catch {
    // Already logged by watchHealth; the retry strategy reconnects later.
  }
}
