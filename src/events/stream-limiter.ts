import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

export type StreamKind = 'sse' | 'ws';

/** One held stream slot. Releasing twice is harmless. */
export interface StreamSlot {
  release(): void;
}

/** Counts concurrent streams per client (an account across all its keys and sessions, or an anonymous IP), per kind. */
export interface StreamLimiter {
  /** A slot, or null when the client already holds the maximum of this kind. */
  acquire(kind: StreamKind, client: string): Promise<StreamSlot | null>;
  stop(): void;
}

export function createMemoryStreamLimiter(max: number): StreamLimiter {
  const counts = new Map<string, number>();
  return {
    async acquire(kind, client) {
      const key = `${kind}:${client}`;
      const held = counts.get(key) ?? 0;
      if (held >= max) return null;
      counts.set(key, held + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          const left = (counts.get(key) ?? 1) - 1;
          if (left <= 0) counts.delete(key);
          else counts.set(key, left);
        },
      };
    },
    stop() {
      counts.clear();
    },
  };
}

/** A slot lives this long in Redis unless its instance refreshes it: a crashed instance's slots free themselves. */
const SLOT_TTL_MS = 30_000;
const REFRESH_MS = 10_000;

// Redis's own clock scores the members, so instances with skewed clocks agree on what has expired.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const REFRESH = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/**
 * Counts shared by every instance: one sorted set per client and kind, one member per open stream, scored by
 * its expiry. If Redis is unreachable the stream is admitted (and logged): availability over the limit.
 */
export function createRedisStreamLimiter(options: {
  redis: Redis;
  keyPrefix: string;
  max: number;
  log: FastifyBaseLogger;
}): StreamLimiter {
  const { redis, keyPrefix, max, log } = options;
  const instance = randomBytes(6).toString('hex');
  const held = new Map<string, string>(); // member -> key
  let sequence = 0;

  const refresh = setInterval(() => {
    for (const [member, key] of held) {
      redis.eval(REFRESH, 1, key, SLOT_TTL_MS, member).catch(() => {});
    }
  }, REFRESH_MS);
  refresh.unref();

  const noop: StreamSlot = { release() {} };

  return {
    async acquire(kind, client) {
      const key = `${keyPrefix}streams:${kind}:${client}`;
      const member = `${instance}:${++sequence}`;
      let granted: unknown;
      try {
        granted = await redis.eval(ACQUIRE, 1, key, max, SLOT_TTL_MS, member);
      } catch (error) {
        log.warn({ err: error, kind }, 'stream limit not checked: redis unavailable; admitting the stream');
        return noop;
      }
      if (granted !== 1) return null;
      held.set(member, key);
      return {
        release() {
          if (!held.delete(member)) return;
          redis.zrem(key, member).catch(() => {
            // The slot's TTL frees it if Redis cannot be told now.
          });
        },
      };
    },
    stop() {
      clearInterval(refresh);
      for (const [member, key] of held) redis.zrem(key, member).catch(() => {});
      held.clear();
    },
  };
}
