import { createRequire } from 'node:module';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

// The plugin's own stores (CommonJS, not in its public exports map as types): reused, not rewritten.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as StoreClass;
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as StoreClass;

type Callback = (error: Error | null, result: { current: number; ttl: number } | null) => void;
interface Store {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  read?(key: string, cb: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}
type StoreClass = new (...args: unknown[]) => Store;

interface Params {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
}

/**
 * Shared counters in Redis; while Redis cannot be reached, this instance counts on its own, so limits
 * degrade to per-instance instead of vanishing. The switch is logged once each way.
 */
export function redisWithLocalFallback(redis: Redis, keyPrefix: string, log: FastifyBaseLogger) {
  let degraded = false;
  const wrap = (shared: Store, local: Store): Store => ({
    incr(key, cb, timeWindow, max) {
      shared.incr(
        key,
        (error, result) => {
          if (!error) {
            if (degraded) log.info('Redis is back: rate limits are shared across instances again');
            degraded = false;
            return cb(null, result);
          }
          if (!degraded) log.warn({ err: error }, 'Redis unavailable: rate limits now count per instance');
          degraded = true;
          local.incr(key, cb, timeWindow, max);
        },
        timeWindow,
        max,
      );
    },
    child(routeOptions) {
      return wrap(shared.child(routeOptions), local.child(routeOptions));
    },
  });
  return class FallbackStore implements Store {
    private readonly inner: Store;
    constructor(params: Params) {
      this.inner = wrap(
        new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, keyPrefix),
        new LocalStore(params.continueExceeding, params.exponentialBackoff),
      );
    }
    incr(key: string, cb: Callback, timeWindow: number, max: number): void {
      this.inner.incr(key, cb, timeWindow, max);
    }
    child(routeOptions: unknown): Store {
      return this.inner.child(routeOptions);
    }
  } as unknown as FastifyRateLimitStoreCtor;
}
