import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { FerryDatabase } from '../store/database.ts';

/** The notice carries no event: receivers read the event log, which stays the only source (and replay). */
const NOTICE = '1';

export function noticeChannel(keyPrefix: string): string {
  return `${keyPrefix}events:new`;
}

/**
 * After each local commit that appended events, tells the other instances to read the log now. Any process
 * that writes events (API or worker) should call this when Redis is configured; without it the others still
 * see the events at their next poll.
 */
export function publishEventNotices(
  database: Pick<FerryDatabase, 'onCommitted'>,
  redis: Redis,
  keyPrefix: string,
  log: FastifyBaseLogger,
): () => void {
  const channel = noticeChannel(keyPrefix);
  return database.onCommitted(() => {
    redis.publish(channel, NOTICE).catch((error: unknown) => {
      log.debug({ err: error }, 'event notice not published; other instances will poll');
    });
  });
}

/** Calls `onNotice` whenever any instance announces new events. */
export async function subscribeEventNotices(
  subscriber: Redis,
  keyPrefix: string,
  onNotice: () => void,
): Promise<void> {
  subscriber.on('message', (channel: string) => {
    if (channel === noticeChannel(keyPrefix)) onNotice();
  });
  await subscriber.subscribe(noticeChannel(keyPrefix));
}
