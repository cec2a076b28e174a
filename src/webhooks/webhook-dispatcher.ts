import { setMaxListeners } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.ts';
import { newId } from '../domain/ids.ts';
import { endpointBackoffAfter, retryDelayAfter, WEBHOOK_EVENT_TYPES } from '../domain/webhook-rules.ts';
import { eventWire } from '../events/stream-event.ts';
import type { FerryMetrics } from '../metrics/ferry-metrics.ts';
import { createPeriodicJob } from '../process/periodic-job.ts';
import type { FerryDatabase } from '../store/engine/database.ts';
import { readEvent } from '../store/engine/events-store.ts';
import {
  type AttemptOutcome,
  type DueDelivery,
  enqueueDeliveries,
  nextDueDelivery,
  recordAttempt,
} from '../store/tables/webhook-deliveries-store.ts';
import {
  type ClaimedEndpoint,
  claimEndpoints,
  releaseEndpoint,
} from '../store/tables/webhook-endpoints-store.ts';
import { type SendResult, sendWebhook } from './webhook-sender.ts';
import { signWebhook } from './webhook-signature.ts';

/** Requests in flight per instance, each to a different endpoint: one slow receiver holds one slot, not the rest. */
const MAX_IN_FLIGHT = 16;
/**
 * Of those, at most this many to endpoints whose last attempt failed (timed out, refused, non-2xx): however many
 * receivers hang, the other half of the slots stays for endpoints in good standing.
 */
const MAX_FAILING_IN_FLIGHT = MAX_IN_FLIGHT / 2;
/** An instance's hold on an endpoint: the 10 s timeout and the recording, with room; a crashed holder's lapses. */
const LEASE_MS = 60_000;
/** Events read from the log per enqueue step. */
const ENQUEUE_BATCH = 500;

export interface WebhookDispatcher {
  start(): void;
  /** Stops claiming, aborts requests in flight (not recorded: they are attempted again) and lets the endpoints go. */
  stop(): Promise<void>;
}

/**
 * Sends webhook deliveries: turns new events of the log into deliveries (enqueueDeliveries, a durable cursor),
 * claims endpoints with a due delivery, longest-waiting first and at most half the slots for failing ones, and
 * sends each endpoint's oldest due one. Every step reads and writes the
 * database, so deliveries survive restarts and several instances share the work. Times are the wall clock, not the
 * app's clock: receivers check `webhook-timestamp` against theirs, and retries wait in real time.
 */
export function createWebhookDispatcher(deps: {
  database: FerryDatabase;
  config: Config['webhooks'];
  log: FastifyBaseLogger;
  metrics: FerryMetrics;
}): WebhookDispatcher {
  const { database, config, log, metrics } = deps;
  const aborter = new AbortController();
  // Every request in flight listens for the stop.
  setMaxListeners(MAX_IN_FLIGHT + 1, aborter.signal);
  const inFlight = new Set<Promise<void>>();
  let failingInFlight = 0;
  const wanted = new Set<string>(WEBHOOK_EVENT_TYPES);
  let unsubscribe: (() => void) | null = null;
  let stopped = false;

  const job = createPeriodicJob({
    name: 'webhook dispatcher',
    intervalMs: config.pollMs,
    firstRunMs: 0,
    log,
    run: async () => {
      while (
        (await enqueueDeliveries(database, {
          now: Date.now(),
          limit: ENQUEUE_BATCH,
          newId: () => newId('whd'),
          wanted: (type) => wanted.has(type),
        })) === ENQUEUE_BATCH
      ) {}
      if (stopped) return;
      const failingFree = Math.min(MAX_IN_FLIGHT - inFlight.size, MAX_FAILING_IN_FLIGHT - failingInFlight);
      if (failingFree > 0) await claim(failingFree, true);
      const free = MAX_IN_FLIGHT - inFlight.size;
      if (free > 0) await claim(free, false);
    },
  });

  async function claim(limit: number, failing: boolean): Promise<void> {
    const now = Date.now();
    for (const endpoint of await claimEndpoints(database, { now, leaseMs: LEASE_MS, limit, failing })) {
      launch(endpoint);
    }
  }

  function launch(endpoint: ClaimedEndpoint): void {
    const failing = endpoint.failures > 0;
    if (failing) failingInFlight += 1;
    const task = attemptNext(endpoint)
      .catch((error: unknown) =>
        log.warn({ err: error, endpoint: endpoint.id }, 'webhook attempt not recorded'),
      )
      .then(() => releaseEndpoint(database.db, endpoint))
      .catch((error: unknown) =>
        log.warn({ err: error, endpoint: endpoint.id }, 'webhook endpoint not released'),
      )
      .finally(() => {
        inFlight.delete(task);
        if (failing) failingInFlight -= 1;
        // The endpoint may have more due, and a slot is free.
        job.wake();
      });
    inFlight.add(task);
  }

  async function attemptNext(endpoint: ClaimedEndpoint): Promise<void> {
    const delivery = await nextDueDelivery(database.db, endpoint.id, Date.now());
    if (!delivery) return;
    const event = await readEvent(database.db, delivery.eventId);
    if (!event) {
      // Not the receiver's doing: its standing is left as it is.
      await record(
        delivery,
        null,
        { kind: 'failed', error: 'the event is no longer in the event log' },
        Date.now(),
      );
      return;
    }
    const result = await send(endpoint, delivery, JSON.stringify(eventWire(event)));
    if (result.kind === 'aborted') return;
    await record(delivery, endpoint, result, Date.now());
  }

  function send(endpoint: ClaimedEndpoint, delivery: DueDelivery, body: string): Promise<SendResult> {
    return sendSigned(endpoint, delivery, body, config.allowPrivateUrls, aborter.signal);
  }

  async function record(
    delivery: DueDelivery,
    endpoint: ClaimedEndpoint | null,
    result: Exclude<SendResult, { kind: 'aborted' }>,
    at: number,
  ) {
    const attempt = attemptRecord(delivery, endpoint, result, at, config.retryDelaysMs);
    const recorded = await recordAttempt(database, attempt);
    if (recorded)
      metrics.webhookDeliveries.inc({ outcome: result.kind === 'refused' ? 'refused' : attempt.outcome });
  }

  return {
    start() {
      unsubscribe = database.onCommitted(() => job.wake());
      job.start();
    },
    async stop() {
      stopped = true;
      unsubscribe?.();
      await job.stop();
      aborter.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** POSTs the delivery's event to the endpoint, signed for this attempt. */
function sendSigned(
  endpoint: ClaimedEndpoint,
  delivery: DueDelivery,
  body: string,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<SendResult> {
  const id = String(delivery.eventId);
  const timestamp = Math.floor(Date.now() / 1000);
  return sendWebhook({
    url: endpoint.url,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(endpoint.secret, id, timestamp, body),
      'ferry-webhook-attempt': String(delivery.attempts + 1),
    },
    body,
    allowPrivate,
    signal,
  });
}

/**
 * What an attempt writes down. A failure holds the whole endpoint back (endpointBackoffAfter): its other deliveries
 * wait with it, so a receiver that is down costs one slot per step of the schedule, not one per pending delivery.
 * `endpoint` null: the failure was not the receiver's, its standing is left as it is.
 */
function attemptRecord(
  delivery: DueDelivery,
  endpoint: ClaimedEndpoint | null,
  result: Exclude<SendResult, { kind: 'aborted' }>,
  at: number,
  delays: readonly number[],
): Parameters<typeof recordAttempt>[1] {
  const delivered = result.kind === 'answered' && result.statusCode >= 200 && result.statusCode < 300;
  const failures = delivered ? delivery.failures : delivery.failures + 1;
  const endpointFailures = endpoint === null ? 0 : delivered ? 0 : endpoint.failures + 1;
  const heldUntil =
    delivered || endpoint === null ? null : at + endpointBackoffAfter(endpointFailures, delays);
  const own = delivered ? null : retryDelayAfter(failures, delays);
  const delay = own === null ? null : Math.max(own, (heldUntil ?? at) - at);
  const outcome: AttemptOutcome = delivered
    ? 'delivered'
    : delay === null
      ? 'failed'
      : result.kind === 'refused'
        ? 'refused'
        : 'retry';
  return {
    deliveryId: delivery.id,
    attempt: delivery.attempts + 1,
    failures,
    at,
    outcome,
    statusCode: result.kind === 'answered' ? result.statusCode : null,
    error: result.kind === 'answered' ? (delivered ? null : `HTTP ${result.statusCode}`) : result.error,
    nextAttemptAt: delay === null ? null : at + delay,
    endpoint: endpoint === null ? null : { id: endpoint.id, failures: endpointFailures, retryAt: heldUntil },
  };
}
