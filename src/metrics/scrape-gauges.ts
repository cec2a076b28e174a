import { ORDER_STATUSES, type OrderStatus } from '../domain/lifecycle.ts';
import type { FerryMetrics } from './ferry-metrics.ts';

/**
 * The gauges read from the database when Prometheus scrapes: orders by status (every process). The caller hands
 * in the read (src/store's countOrdersByStatus), so metrics stays a leaf that every layer can record into.
 */
export function collectOrderGauge(
  metrics: FerryMetrics,
  countOrdersByStatus: () => Promise<ReadonlyMap<OrderStatus, number>>,
): void {
  metrics.collectAt({
    name: 'ferry_orders',
    help: 'Orders in the database by status (read at scrape time; the same on every instance)',
    labelNames: ['status'],
    async read(set) {
      const counts = await countOrdersByStatus();
      // Every status is reported, 0 included, so a rate or an alert never sees a series vanish.
      for (const status of ORDER_STATUSES) set({ status }, counts.get(status) ?? 0);
    },
  });
}

/** Where this instance's event tail stands (read from src/store and src/events by the caller). */
export interface EventTail {
  /** The newest final event id in the log. */
  newest(): Promise<number>;
  /** The id the tailer delivered last. */
  delivered(): number;
}

/**
 * Events committed to the log that this instance's tailer has not handed to its streams yet: the newest final
 * event id minus the id the tailer delivered last. 0 when streams are current.
 */
export function collectEventTailLag(metrics: FerryMetrics, tail: EventTail): void {
  metrics.collectAt({
    name: 'ferry_event_tail_lag_events',
    help: "Events in the log not yet delivered to this instance's streams (newest event id minus the tailer's position)",
    labelNames: [],
    async read(set) {
      const newest = await tail.newest();
      set({}, Math.max(0, newest - tail.delivered()));
    },
  });
}
