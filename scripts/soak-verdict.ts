/**
 * scripts/soak.ts's assertions, each reporting through `fail`: no 5xx or transport error, every order terminal as
 * intended, no runaway RSS growth, and every order event of the log on the stream exactly once.
 */
import { eventLog, type orderStatuses, type StreamLog } from './soak-probes.ts';
import { type Fail, type SoakHttp, type SwapRecord, sleep } from './soak-traffic.ts';

export const TERMINAL = new Set(['completed', 'failed', 'refunded']);

type OrderStatuses = Awaited<ReturnType<typeof orderStatuses>>;

export function checkResponses(stats: SoakHttp['stats'], fail: Fail): void {
  if (stats.serverErrors.length > 0)
    fail(
      `${stats.serverErrors.length} responses were 5xx, e.g. ${stats.serverErrors.slice(0, 3).join(' | ')}`,
    );
  if (stats.transportErrors.length > 0)
    fail(
      `${stats.transportErrors.length} transport errors, e.g. ${stats.transportErrors.slice(0, 3).join(' | ')}`,
    );
}

/** Every order terminal, each swap in the state it was meant to reach; returns the count of orders by status. */
export function checkOrders(
  statuses: OrderStatuses,
  swaps: Map<string, SwapRecord>,
  fail: Fail,
): Map<string, number> {
  const byStatus = new Map<string, number>();
  for (const s of statuses.values()) byStatus.set(s.status, (byStatus.get(s.status) ?? 0) + 1);
  const stuck = [...statuses.entries()].filter(([, s]) => !TERMINAL.has(s.status));
  if (stuck.length > 0)
    fail(
      `${stuck.length} orders not terminal after the drain: ${stuck
        .slice(0, 5)
        .map(([id, s]) => `${id}=${s.status}`)
        .join(', ')}`,
    );
  for (const s of swaps.values()) {
    const got = statuses.get(s.orderId);
    const want = s.leaveUnfilled ? 'refunded' : 'completed';
    if (got?.status !== want)
      fail(`order ${s.orderId} is ${got?.status} (${got?.failure ?? ''}), expected ${want}`);
  }
  return byStatus;
}

/** The last third of the RSS samples against the middle third; returns both averages. */
export function checkRss(
  rss: { bytes: number }[],
  slack: number,
  allowance: number,
  fail: Fail,
): { middle: number; last: number } {
  const third = Math.floor(rss.length / 3);
  const avg = (xs: { bytes: number }[]) => xs.reduce((sum, x) => sum + x.bytes, 0) / Math.max(1, xs.length);
  const middle = avg(rss.slice(third, 2 * third));
  const last = avg(rss.slice(2 * third));
  if (third < 2) fail(`too few RSS samples (${rss.length})`);
  else if (last > middle * slack + allowance) {
    fail(
      `RSS keeps growing: middle third ${(middle / 2 ** 20).toFixed(1)} MiB, last third ${(last / 2 ** 20).toFixed(1)} MiB`,
    );
  }
  return { middle, last };
}

/**
 * Every order event of the log, exactly once on the stream (waiting, bounded, for the stream to catch up, then
 * closing it); returns the event log it compared against.
 */
export async function checkStream(
  databaseUrl: string,
  stream: StreamLog,
  streamAbort: AbortController,
  fail: Fail,
): Promise<{ id: number; type: string }[]> {
  const streamed = stream.events;
  let log = await eventLog(databaseUrl);
  const streamDeadline = Date.now() + 15_000;
  while (Date.now() < streamDeadline && (streamed.at(-1)?.id ?? 0) < (log.at(-1)?.id ?? 0)) {
    await sleep(200);
    log = await eventLog(databaseUrl);
  }
  streamAbort.abort();
  if (stream.error) fail(stream.error);
  const counts = new Map<number, number>();
  for (const e of streamed) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
  const orderEvents = log.filter((e) => e.type.startsWith('order.'));
  const missing = orderEvents.filter((e) => !counts.has(e.id));
  const duplicated = [...counts.entries()].filter(([, n]) => n > 1);
  const logIds = new Set(log.map((e) => e.id));
  const unknown = streamed.filter((e) => !logIds.has(e.id));
  if (missing.length > 0)
    fail(
      `${missing.length} order events never arrived on the stream, e.g. ${missing
        .slice(0, 5)
        .map((e) => e.id)
        .join(', ')}`,
    );
  if (duplicated.length > 0)
    fail(
      `${duplicated.length} events arrived more than once, e.g. ${duplicated
        .slice(0, 5)
        .map(([id, n]) => `${id}x${n}`)
        .join(', ')}`,
    );
  if (unknown.length > 0) fail(`${unknown.length} streamed events are not in the event log`);
  for (let i = 1; i < streamed.length; i++) {
    if (streamed[i]!.id <= streamed[i - 1]!.id) {
      fail(`stream ids not increasing at ${streamed[i - 1]!.id} -> ${streamed[i]!.id}`);
      break;
    }
  }
  return log;
}
