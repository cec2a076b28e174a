import { ORDER_STATUSES } from '../domain/lifecycle.ts';
import type { EventFanout } from '../events/event-fanout.ts';
import type { FerryDatabase } from '../store/database.ts';
import { latestFinalEventId } from '../store/events-store.ts';
import { countOrdersByStatus } from '../store/orders-store.ts';
import type { FerryMetrics } from './ferry-metrics.ts';

/** The gauges read from the database when Prometheus scrapes: orders by status (every process). */
export function collectOrderGauge(metrics: FerryMetrics, database: FerryDatabase): void {
  metrics.collectAt({
    name: 'ferry_orders',
    help: 'Orders in the database by status (read at scrape time; the same on every instance)',
    labelNames: ['status'],
    async read(set) {
      const counts = await countOrdersByStatus(database.db);
      // Every status is reported, 0 included, so a rate or an alert never sees a series vanish.
      for (const status of ORDER_STATUSES) set({ status }, counts.get(status) ?? 0);
    },
  });
}

/**
 * Events committed to the log that this instance's tailer has not handed to its streams yet: the newest final
 * event id minus the id the tailer delivered last. 0 when streams are current.
 */
export function collectEventTailLag(
  metrics: FerryMetrics,
  database: FerryDatabase,
  fanout: EventFanout,
): void {
  metrics.collectAt({
    name: 'ferry_event_tail_lag_events',
    help: "Events in the log not yet delivered to this instance's streams (newest event id minus the tailer's position)",
    labelNames: [],
    async read(set) {
      const newest = await latestFinalEventId(database.db);
      set({}, Math.max(0, newest - fanout.position));
    },
  });
}
