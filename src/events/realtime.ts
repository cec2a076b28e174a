import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import type { Clock } from '../domain/clock.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import {
  type CredentialWatch,
  createCredentialWatch,
  publishCredentialNotice,
  subscribeCredentialNotices,
} from './credential-watch.ts';
import { createEventFanout, type EventFanout } from './event-fanout.ts';
import { publishEventNotices, subscribeEventNotices } from './event-notices.ts';
import { connectOrDegrade, createRedisClient, createRedisSubscriber } from './redis-client.ts';
import { createMemoryStreamLimiter, createRedisStreamLimiter, type StreamLimiter } from './stream-limiter.ts';

/** What the streams need: the tailer, the stream counts, and Redis when several instances share the work. */
export interface Realtime {
  readonly fanout: EventFanout;
  readonly limiter: StreamLimiter;
  /** Null without REDIS_URL: everything then runs in-process. */
  readonly redis: Redis | null;
  /** Closes the streams of credentials that end. */
  readonly credentials: CredentialWatch;
  /** Call after a credential ended in this process: streams on every instance close now, not at their poll. */
  credentialsEnded(): void;
  stop(): Promise<void>;
}

export async function createRealtime(options: {
  config: Config;
  database: FerryDatabase;
  clock: Clock;
  log: FastifyBaseLogger;
}): Promise<Realtime> {
  const { config, database, log } = options;
  const fanout = createEventFanout({ database, pollMs: config.streams.pollMs, log });
  await fanout.start();
  const stopLocalWake = database.onCommitted(() => fanout.committedLocally());
  const credentials = createCredentialWatch({
    database,
    clock: options.clock,
    pollMs: config.streams.pollMs,
    log,
  });
  credentials.start();

  if (!config.redisUrl) {
    const limiter = createMemoryStreamLimiter(config.streams.maxPerClient);
    return {
      fanout,
      limiter,
      redis: null,
      credentials,
      credentialsEnded: () => credentials.check(),
      async stop() {
        stopLocalWake();
        limiter.stop();
        await credentials.stop();
        await fanout.stop();
      },
    };
  }

  const redis = createRedisClient(config.redisUrl, log, 'commands');
  const subscriber = createRedisSubscriber(config.redisUrl, log, 'event notices');
  await Promise.all([connectOrDegrade(redis), connectOrDegrade(subscriber)]);
  const stopPublishing = publishEventNotices(database, redis, config.redisKeyPrefix, log);
  const subscribed = Promise.all([
    subscribeEventNotices(subscriber, config.redisKeyPrefix, () => fanout.wake()),
    subscribeCredentialNotices(subscriber, config.redisKeyPrefix, () => credentials.check()),
  ]);
  // Wait for the subscription only when Redis is up, so a Redis outage never blocks start (polling covers it).
  if (subscriber.status === 'ready') await subscribed;
  else subscribed.catch(() => {});
  const limiter = createRedisStreamLimiter({
    redis,
    keyPrefix: config.redisKeyPrefix,
    max: config.streams.maxPerClient,
    log,
  });
  return {
    fanout,
    limiter,
    redis,
    credentials,
    credentialsEnded() {
      credentials.check();
      publishCredentialNotice(redis, config.redisKeyPrefix, log);
    },
    async stop() {
      stopLocalWake();
      stopPublishing();
      limiter.stop();
      await credentials.stop();
      await fanout.stop();
      await Promise.allSettled([redis.quit(), subscriber.quit()]);
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}
