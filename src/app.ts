import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { type ChainGateway, createChainGateway } from './chains/chain-gateway.ts';
import type { ChainRegistry } from './chains/chain-registry.ts';
import { type Config, redactUrl } from './config/config.ts';
import { type Clock, systemClock } from './domain/clock.ts';
import { createEventLog } from './events/event-log.ts';
import { createRealtime } from './events/realtime.ts';
import type { FerryApp } from './http/app-types.ts';
import { createServer } from './http/server.ts';
import { createAccountService } from './services/account-service.ts';
import { createAuthService } from './services/auth-service.ts';
import { createExpirySweeper, type ExpirySweeper } from './services/expiry-sweeper.ts';
import { createOrderService } from './services/order-service.ts';
import { createQuoteRequestService } from './services/quote-request-service.ts';
import { createQuoteService } from './services/quote-service.ts';
import type { ServiceDeps } from './services/service-deps.ts';
import { createSwapService } from './services/swap-service.ts';
import type { SettlementWorker } from './settlement/settlement-worker.ts';
import { createWorkerRuntime, type WorkerKeys } from './settlement/worker-runtime.ts';
import { createDatabase, type FerryDatabase } from './store/database.ts';
import { migrateToLatest } from './store/migrator.ts';

export interface FerryAppInstance {
  readonly server: FerryApp;
  readonly database: FerryDatabase;
  readonly sweeper: ExpirySweeper;
  /** The settlement worker when WORKER is on (started by listen), else null. */
  readonly worker: SettlementWorker | null;
  readonly accounts: ReturnType<typeof createAccountService>;
  /** Listens on config.host:config.port (port 0 picks a free one) and returns the base URL. */
  listen(): Promise<string>;
  /** Drains: readiness fails, in-flight requests finish, then the database closes. */
  close(): Promise<void>;
}

export function createLogger(config: Config): FastifyBaseLogger {
  return pino({
    level: config.logLevel,
    redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[redacted]' },
  });
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
}): Promise<FerryAppInstance> {
  const { config, registry } = options;
  const log = options.log ?? createLogger(config);
  const clock = options.clock ?? systemClock;
  const database = createDatabase(config);
  const applied = await migrateToLatest(database);
  log.info({ database: redactUrl(config.databaseUrl), applied }, 'database ready');

  const events = createEventLog();
  const realtime = await createRealtime({ config, database, events, log });
  const deps: ServiceDeps = {
    config,
    database,
    clock,
    registry,
    chains: options.chains ?? createChainGateway({ registry, clock, balanceCacheMs: config.balanceCacheMs }),
    events,
    log,
  };
  const quotes = createQuoteService(deps);
  const accounts = createAccountService({ database, clock });
  let draining = false;
  const server = await createServer({
    config,
    log,
    clock,
    database,
    registry,
    auth: createAuthService(deps),
    quoteRequests: createQuoteRequestService(deps),
    quotes,
    swaps: createSwapService({ ...deps, quotes }),
    orders: createOrderService(deps),
    accounts,
    isDraining: () => draining,
    realtime,
  });
  const sweeper = createExpirySweeper(deps);
  const worker = config.worker.enabled
    ? createWorkerRuntime({ ...deps, defaultKeys: options.workerKeys })
    : null;

  return {
    server,
    database,
    sweeper,
    worker,
    accounts,
    async listen() {
      const address = await server.listen({ host: config.host, port: config.port });
      sweeper.start();
      worker?.start();
      return address;
    },
    async close() {
      draining = true;
      await sweeper.stop();
      await worker?.stop();
      await server.close();
      await realtime.stop();
      await database.destroy();
    },
  };
}
