/**
 * A bench scenario as the table (scenarios/scenario-table.ts) declares it: the id BENCH_ONLY names, what it needs
 * and how it runs. bench/run.ts provides what the needs ask for; the shape of `run` follows from them.
 */
import type { BenchAccounts, Seeder, SeedSummary } from '../seed/seeder.ts';
import { ONLY, wants } from './bench-settings.ts';
import type { PgProbe } from './pg-profile.ts';
import type { RawWriteResult } from './pg-writes.ts';
import type { BackendRun, ScenarioRow } from './report.ts';
import type { RunningServer } from './server.ts';

/**
 * - `seeded-ferry`: a Ferry seeded with history, provided on each backend (embedded, and PostgreSQL when
 *   BENCH_DATABASE_URL is set); the scenario records its rows through the context;
 * - `postgres`: the PostgreSQL server of BENCH_DATABASE_URL, with its raw write rate (row 8) as the reference;
 * - `redis`: BENCH_REDIS_URL; without it the scenario is skipped, saying so;
 * - `anvil`: anvil chains, which the scenario starts and stops itself;
 * - `ferry`: Ferry processes of the scenario's own (its own database); on PostgreSQL such a scenario runs after
 *   the seeded one, a database-only one before it, beside the reference;
 * - `named`: runs only when BENCH_ONLY names it (minutes of real waiting).
 */
export type Need = 'seeded-ferry' | 'postgres' | 'redis' | 'anvil' | 'ferry' | 'named';

/** What every scenario of one backend shares: the server, its seed, the load shapes, and where rows go. */
export interface ScenarioContext {
  readonly backend: string;
  readonly server: RunningServer;
  readonly seeder: Seeder;
  readonly seed: SeedSummary;
  readonly accounts: BenchAccounts;
  readonly route: { inputChain: string; outputChain: string; inputToken: string; outputToken: string };
  readonly quoteRequestBody: Record<string, string>;
  readonly mmKey: { 'x-api-key': string };
  readonly load: { connections: number; durationSeconds: number };
  readonly warm: { connections: number; durationSeconds: number };
  readonly postgres: boolean;
  readonly record: (row: ScenarioRow) => void;
  /** The PostgreSQL database of the run (null when embedded): the write scenarios report its side of the time. */
  readonly pgProbe: PgProbe | null;
  /** Measures the baseline again right after a scenario, so each ratio compares two adjacent measurements. */
  readonly nextBaseline: () => Promise<ScenarioRow>;
}

/** What a `postgres` scenario is given: the server, Redis if any, and the same run's raw write rate. */
export interface PostgresContext {
  readonly serverUrl: string;
  readonly redisUrl: string | undefined;
  readonly raw: RawWriteResult;
}

interface Declared {
  readonly id: string;
  /** What it measures, in a few words (the skip message names it). */
  readonly title: string;
}

export interface SeededScenario extends Declared {
  readonly needs: readonly ['seeded-ferry'];
  run(ctx: ScenarioContext): Promise<void>;
}

/** Its rows join the PostgreSQL run's; it logs them itself. */
export interface PostgresScenario extends Declared {
  readonly needs: readonly ['postgres', ...('redis' | 'ferry')[]];
  run(pg: PostgresContext): Promise<ScenarioRow[]>;
}

/** A run of its own in the report: it starts and stops everything it uses, and logs its rows itself. */
export interface OwnScenario extends Declared {
  readonly needs: readonly ['anvil', ...('ferry' | 'named')[]];
  run(): Promise<BackendRun>;
}

export type Scenario = SeededScenario | PostgresScenario | OwnScenario;

export const isSeeded = (s: Scenario): s is SeededScenario => s.needs[0] === 'seeded-ferry';
export const isPostgres = (s: Scenario): s is PostgresScenario => s.needs[0] === 'postgres';
export const isOwn = (s: Scenario): s is OwnScenario => s.needs[0] === 'anvil';

/** BENCH_ONLY's choice (all when unset); a `named` scenario only when BENCH_ONLY names it. */
export function isChosen(s: Scenario): boolean {
  return (s.needs as readonly Need[]).includes('named') ? ONLY?.has(s.id) === true : wants(s.id);
}
