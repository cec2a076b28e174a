import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { FerryDatabase } from '../store/engine/database.ts';

/** The notice carries no event: receivers read the event log, which stays the only source (and replay). */
const NOTICE = '1';

export function noticeChannel(keyPrefix: string): string {
  return `${keyPrefix}events:new`;
}

/** Announces commits that created an order: settlement workers in other processes look at it at once. */
export function orderNoticeChannel(keyPrefix: string): string {
  return `${keyPrefix}orders:new`;
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
  const publish = (to: string) =>
    redis.publish(to, NOTICE).catch((error: unknown) => {
      log.debug({ err: error }, 'event notice not published; other instances will poll');
    });
  return database.onCommitted((types) => {
    publish(channel);
    if (types.has('order.created')) publish(orderNoticeChannel(keyPrefix));
  });
}

/** Calls `onNotice` for every message on `channel` (notices carry nothing: the channel is the whole message). */
export async function subscribeNotices(
  subscriber: Redis,
  channel: string,
  onNotice: () => void,
): Promise<void> {
  subscriber.on('message', (from: string) => {
    if (from === channel) onNotice();
  });
  await subscriber.subscribe(channel);
}

/** Calls `onNotice` whenever any instance announces new events. */
export function subscribeEventNotices(
  subscriber: Redis,
  keyPrefix: string,
  onNotice: () => void,
): Promise<void> {
  return subscribeNotices(subscriber, noticeChannel(keyPrefix), onNotice);
}

/** Calls `onOrder` whenever any instance announces a new order (settlement workers in their own process). */
export function subscribeOrderNotices(
  subscriber: Redis,
  keyPrefix: string,
  onOrder: () => void,
): Promise<void> {
  return subscribeNotices(subscriber, orderNoticeChannel(keyPrefix), onOrder);
}
