import type { FastifyBaseLogger } from 'fastify';
import { createChainClock } from './chains/chain-clock.ts';
import { type ChainGateway, createChainGateway } from './chains/chain-gateway.ts';
import type { ChainRegistry } from './chains/chain-registry.ts';
import { readEscrowFeeTerms } from './chains/settlement/escrow-fee-recipient.ts';
import { createSignatureChecks } from './chains/signature-checks.ts';
import { type Config, redactUrl } from './config/config.ts';
import { requireMetricsAccess } from './config/metrics-access.ts';
import { type Clock, systemClock } from './domain/clock.ts';
import { publishEventNotices, subscribeOrderNotices } from './events/event-notices.ts';
import { createRealtime } from './events/realtime.ts';
import { connectOrDegrade, createRedisClient, createRedisSubscriber } from './events/redis-client.ts';
import type { FerryApp } from './http/app-types.ts';
import { listenForMetrics } from './http/metrics-server.ts';
import { createServer } from './http/server.ts';
import { createMetrics, type FerryMetrics } from './metrics/ferry-metrics.ts';
import { collectEventTailLag, collectOrderGauge } from './metrics/scrape-gauges.ts';
import { createProcessLogger } from './process/logger.ts';
import {
  createShutdownRegistry,
  type ShutdownRegistry,
  type ShutdownReport,
} from './process/shutdown-registry.ts';
import { type AccountService, createAccountService } from './services/account-service.ts';
import { createAuthService } from './services/auth-service.ts';
import { createExpirySweeper, type ExpirySweeper } from './services/expiry-sweeper.ts';
import { checkFeeRecipients } from './services/fee-recipient-check.ts';
import { createOrderService } from './services/order-service.ts';
import { createQuoteRequestService } from './services/quote-request-service.ts';
import { createQuoteService } from './services/quote-service.ts';
import type { ServiceDeps } from './services/service-deps.ts';
import { createSwapService } from './services/swap-service.ts';
import type { SettlementWorker } from './settlement/settlement-worker.ts';
import { createWorkerRuntime, type WorkerKeys, type WorkerRuntime } from './settlement/worker-runtime.ts';
import { createDatabase, type FerryDatabase } from './store/engine/database.ts';
import { latestFinalEventId } from './store/engine/events-store.ts';
import { migrateToLatest } from './store/engine/migrator.ts';
import { countOrdersByStatus } from './store/tables/orders-store.ts';
import { createWebhookDispatcher, type WebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { createWebhookService } from './webhooks/webhook-service.ts';

export interface FerryAppInstance {
  readonly server: FerryApp;
  readonly database: FerryDatabase;
  readonly sweeper: ExpirySweeper;
  /** The settlement worker when WORKER is on (started by listen), else null. */
  readonly worker: WorkerRuntime | null;
  readonly accounts: AccountService;
  /** This instance's metrics registry (GET /metrics); the worker it runs counts into it too. */
  readonly metrics: FerryMetrics;
  /** Delivers events to webhook endpoints (started by listen; woken by every commit). */
  readonly webhooks: WebhookDispatcher;
  /** Listens on config.host:config.port (port 0 picks a free one) and returns the base URL. */
  listen(): Promise<string>;
  /**
   * Drains: readiness fails, in-flight requests finish, then the database closes, all within the shutdown deadline.
   * Answers the parts that had not stopped when it passed (already logged); a caller about to remove what they use
   * (the demo's data folder, a test's devnets) can tell.
   */
  close(): Promise<ShutdownReport>;
}

export function createLogger(config: Config): FastifyBaseLogger {
  return createProcessLogger(
    {
      level: config.logLevel,
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[redacted]' },
    },
    config.logFormat,
  );
}

/** Wires every part once, from the config: the one place that knows how Ferry fits together. */
export async function createApp(options: {
  config: Config;
  registry: ChainRegistry;
  log?: FastifyBaseLogger;
  clock?: Clock;
  chains?: ChainGateway;
  /** Keys the worker may fall back to (the built-in devnets' well-known ones). */
  workerKeys?: WorkerKeys;
  /** The process's shutdown registry (the CLI's, with its devnets); a new one otherwise. */
  shutdown?: ShutdownRegistry;
}): Promise<FerryAppInstance> {
  const { config } = options;
  // Refused before anything opens: an API on a reachable HOST without METRICS_TOKEN would publish its metrics.
  requireMetricsAccess(config, 'api');
  const log = options.log ?? createLogger(config);
  const shutdown = options.shutdown ?? createShutdownRegistry(log);
  try {
    return await wireApp({ ...options, log, shutdown });
  } catch (error) {
    // Whatever was opened before the failure is closed again (a pool, Redis connections).
    await shutdown.close();
    throw error;
  }
}

async function wireApp(options: {
  config: Config;
  registry: ChainRegistry;
  log: FastifyBaseLogger;
  shutdown: ShutdownRegistry;
  clock?: Clock;
  chains?: ChainGateway;
  workerKeys?: WorkerKeys;
}): Promise<FerryAppInstance> {
  const { config, registry, log, shutdown } = options;
  const clock = options.clock ?? systemClock;
  const database = await openDatabase(config, log, shutdown);
  const realtime = await createRealtime({ config, database, clock, log });
  shutdown.register('streams', () => realtime.stop());
  const metrics = createMetrics();
  collectOrderGauge(metrics, () => countOrdersByStatus(database.db));
  collectEventTailLag(metrics, {
    newest: () => latestFinalEventId(database.db),
    delivered: () => realtime.fanout.position,
  });
  const rpcErrors = metrics.rpcErrors;
  const chainClock = createChainClock({
    registry,
    clock,
    refreshMs: config.chainClockRefreshMs,
    log,
    rpcErrors,
  });
  shutdown.register('chain clock', () => chainClock.stop());
  const credentialsEnded = () => realtime.credentialsEnded();
  const deps: ServiceDeps = {
    config,
    database,
    clock,
    registry,
    chains:
      options.chains ??
      createChainGateway({ registry, clock, balanceCacheMs: config.balanceCacheMs, rpcErrors }),
    chainClock,
    log,
  };
  await checkFeeRecipients({
    protocolFeeBps: config.protocolFeeBps,
    feeRecipient: config.feeRecipient,
    read: () => readEscrowFeeTerms(registry),
    unreadable: (err) =>
      log.warn({ err }, "could not read the escrows' protocol fee at start; deposits revert if it is not 0"),
  });
  const quotes = createQuoteService(deps);
  const signatures = createSignatureChecks({ registry, rpcErrors });
  const accounts = createAccountService({ database, clock, credentialsEnded });
  let draining = false;
  const worker = config.worker.enabled
    ? createWorkerRuntime({ ...deps, defaultKeys: options.workerKeys, metrics })
    : null;
  const server = await createServer({
    config,
    log,
    clock,
    database,
    registry,
    auth: createAuthService({ ...deps, credentialsEnded, signatures }),
    quoteRequests: createQuoteRequestService(deps),
    quotes,
    swaps: createSwapService({ ...deps, quotes, signatures }),
    orders: createOrderService({ ...deps, eventVersion: () => realtime.fanout.version }),
    accounts,
    webhooks: createWebhookService({ database, clock, allowPrivateUrls: config.webhooks.allowPrivateUrls }),
    isDraining: () => draining,
    relayerWarnings: () => worker?.relayerWarnings() ?? [],
    realtime,
    metrics,
  });
  shutdown.register('http server', () => server.close());
  const sweeper = createExpirySweeper(deps);
  if (worker) shutdown.register('settlement worker', () => worker.stop());
  // An order created on another instance wakes this one's worker too, not only at its next poll.
  if (worker && config.redisUrl) {
    await wakeOnOrderNotices({
      redisUrl: config.redisUrl,
      keyPrefix: config.redisKeyPrefix,
      log,
      shutdown,
      worker,
      metrics,
    });
  }
  shutdown.register('expiry sweeper', () => sweeper.stop());
  const webhooks = createWebhookDispatcher({ database, config: config.webhooks, log, metrics });
  shutdown.register('webhook dispatcher', () => webhooks.stop());
  // Closed first: readiness fails while everything else drains.
  shutdown.register('readiness', () => {
    draining = true;
  });

  return {
    server,
    database,
    sweeper,
    worker,
    accounts,
    metrics,
    webhooks,
    async listen() {
      // Deadlines of the first quotes already follow the chains' clocks (an unreachable chain does not block).
      await chainClock.start();
      // Keys that cannot work refuse the start before the API takes traffic.
      await worker?.checkKeys();
      const address = await server.listen({ host: config.host, port: config.port });
      sweeper.start();
      worker?.start();
      webhooks.start();
      return address;
    },
    close: () => shutdown.close(),
  };
}

/** Opens and migrates the database of DATABASE_URL; it closes last. */
async function openDatabase(config: Config, log: FastifyBaseLogger, shutdown: ShutdownRegistry) {
  const database = createDatabase(config, {
    backgroundCheckpoints: { onProblem: (message) => log.warn(message) },
  });
  shutdown.register('database', () => database.destroy());
  const applied = await migrateToLatest(database);
  log.info({ database: redactUrl(config.databaseUrl), applied }, 'database ready');
  return database;
}

/**
 * The worker-only process (`ferry worker`): the database, the settlement worker and, with REDIS_URL, the notices
 * that make API instances stream this worker's events at once rather than at their next poll, and that wake this
 * worker when an API instance creates an order.
 */
export async function createWorkerProcess(options: {
  config: Config;
  registry: ChainRegistry;
  log: FastifyBaseLogger;
  shutdown: ShutdownRegistry;
}): Promise<SettlementWorker> {
  const { config, registry, log, shutdown } = options;
  const metricsAccess = config.metricsPort === null ? null : requireMetricsAccess(config, 'worker');
  const database = await openDatabase(config, log, shutdown);
  const metrics = createMetrics();
  collectOrderGauge(metrics, () => countOrdersByStatus(database.db));
  const worker = createWorkerRuntime({ config, registry, database, clock: systemClock, log, metrics });
  await worker.checkKeys();
  if (config.redisUrl) {
    const redis = createRedisClient(config.redisUrl, log, 'worker-notices');
    shutdown.register('redis', () => redis.disconnect());
    shutdown.register('event notices', publishEventNotices(database, redis, config.redisKeyPrefix, log));
    await wakeOnOrderNotices({
      redisUrl: config.redisUrl,
      keyPrefix: config.redisKeyPrefix,
      log,
      shutdown,
      worker,
      metrics,
    });
  }
  shutdown.register('settlement worker', () => worker.stop());
  if (config.metricsPort !== null && metricsAccess !== null) {
    const server = await listenForMetrics({
      metrics,
      access: metricsAccess,
      host: config.host,
      port: config.metricsPort,
      log,
    });
    shutdown.register('metrics server', () => server.close());
    log.info({ address: `${server.address}/metrics` }, 'worker metrics listening');
  }
  return worker;
}

/** Wakes `worker` whenever any instance announces a new order over Redis (its own commits included). */
async function wakeOnOrderNotices(options: {
  redisUrl: string;
  keyPrefix: string;
  log: FastifyBaseLogger;
  shutdown: ShutdownRegistry;
  worker: Pick<SettlementWorker, 'wake'>;
  metrics: FerryMetrics;
}): Promise<void> {
  const { redisUrl, keyPrefix, log, shutdown, worker, metrics } = options;
  const subscriber = createRedisSubscriber(redisUrl, log, 'order notices');
  shutdown.register('order notices', () => subscriber.disconnect());
  await connectOrDegrade(subscriber);
  // Without Redis the poll still finds new orders; the subscription is not waited for.
  subscribeOrderNotices(subscriber, keyPrefix, () => {
    metrics.settlementWakes.inc({ source: 'notice' });
    worker.wake();
  }).catch(() => {});
}
