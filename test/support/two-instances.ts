import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createApp, type FerryAppInstance } from '../../src/app.ts';
import type { Config } from '../../src/config/config.ts';
import { type Harness, startHarness } from './harness.ts';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface TwoInstances {
  /** Instance A, with the devnets and the test helpers. */
  h: Harness;
  /** Instance B: the same database, chains, clock and Redis prefix. */
  b: FerryAppInstance;
  urlA: string;
  urlB: string;
  /** A Redis connection of the test's own (for keys and notices). */
  redis: Redis;
  close(): Promise<void>;
}

/**
 * Two API instances on one PostgreSQL database and the local Redis, under a key prefix of their own. The log's
 * fallback poll is slowed to a minute, so whatever reaches the other instance quickly came through Redis (or the
 * tailer's own wake-ups).
 */
export async function startTwoInstances(
  options: { maxStreamsPerClient?: number; config?: Partial<Config> } = {},
): Promise<TwoInstances> {
  const prefix = `ferry-test-${randomBytes(6).toString('hex')}:`;
  const streams = {
    maxPerClient: options.maxStreamsPerClient ?? 3,
    heartbeatMs: 15_000,
    replayMaxEvents: 10_000,
    maxBufferBytes: 1 << 20,
    pollMs: 60_000,
    replayMaxPending: 10_000,
  };
  const h = await startHarness({ redisUrl: REDIS_URL, redisKeyPrefix: prefix, streams, ...options.config });
  const b = await createApp({
    config: { ...h.config, port: 0 },
    registry: h.registry,
    clock: h.clock,
    log: pino({ level: 'silent' }),
  });
  const urlB = await b.listen();
  const redis = new Redis(REDIS_URL);
  return {
    h,
    b,
    urlA: h.baseUrl,
    urlB,
    redis,
    async close() {
      await b.close();
      await h.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  };
}
