import type { FastifyBaseLogger } from 'fastify';
import type { ChainClock } from '../chains/chain-clock.ts';
import type { ChainGateway } from '../chains/chain-gateway.ts';
import type { ChainRegistry } from '../chains/chain-registry.ts';
import type { Config } from '../config/config.ts';
import type { Clock } from '../domain/clock.ts';
import type { FerryDatabase } from '../store/engine/database.ts';

/** What every service factory receives: wired once in createApp, never read from globals. */
export interface ServiceDeps {
  readonly config: Config;
  readonly database: FerryDatabase;
  readonly clock: Clock;
  readonly registry: ChainRegistry;
  readonly chains: ChainGateway;
  /** Each chain's time, for deadlines the contracts check (no RPC call per use). */
  readonly chainClock: ChainClock;
  readonly log: FastifyBaseLogger;
}
