/**
 * The `seeded-ferry` need: one backend's Ferry started on a fresh data folder, seeded with history, and the
 * scenarios that asked for it run against it, each API scenario next to a fresh baseline measurement.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OFFERER, Seeder } from '../seed/seeder.ts';
import {
  CONNECTIONS,
  DURATION,
  LP_COUNT,
  nodeFlags,
  PROFILE_DIR,
  SEED_EXTRA_REQUESTS,
  SEED_ORDERS,
  say,
  WARMUP,
} from './bench-settings.ts';
import { logRow, measureBaseline } from './load-row.ts';
import type { PgProbe } from './pg-profile.ts';
import type { RawWriteResult } from './pg-writes.ts';
import { withRawPgRatio } from './postgres-rows.ts';
import type { BackendRun, ScenarioRow } from './report.ts';
import type { ScenarioContext, SeededScenario } from './scenario.ts';
import { type RunningServer, startFerry } from './server.ts';

export async function runBackend(
  backend: string,
  baselineServer: RunningServer,
  seededScenarios: readonly SeededScenario[],
  options: { databaseUrl?: string; pgProbe?: PgProbe; redisUrl?: string; rawPg?: RawWriteResult },
): Promise<BackendRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-bench-'));
  const databaseUrl = options.databaseUrl ?? `sqlite:${path.join(dataDir, 'ferry.sqlite')}`;
  say(`\n== ${backend}: starting Ferry (data ${dataDir})`);
  const server = await startFerry({ dataDir, databaseUrl, redisUrl: options.redisUrl, nodeFlags });
  const scenarios: ScenarioRow[] = [];
  const baselines: ScenarioRow[] = [];
  // Measured right after each API scenario, so each ratio compares two adjacent measurements.
  const nextBaseline = async () => {
    const b = await measureBaseline(baselineServer);
    baselines.push(b);
    return b;
  };
  let seeder: Seeder | null = null;
  try {
    seeder = await Seeder.open(databaseUrl, path.join(dataDir, 'chains.json'));
    const accounts = await seeder.createAccounts(LP_COUNT);
    say(
      `   seeding ${SEED_ORDERS} orders and ${SEED_ORDERS + SEED_EXTRA_REQUESTS} quote requests with quotes`,
    );
    const seed = await seeder.seedHistory(SEED_ORDERS, SEED_EXTRA_REQUESTS, say);
    say(`   seeded in ${seed.seconds.toFixed(1)} s (${seed.quotes} quotes)`);
    const [chainA, chainB] = seeder.chains;
    if (!chainA || !chainB) throw new Error('the registry needs two chains');
    const route = {
      inputChain: chainA.name,
      outputChain: chainB.name,
      inputToken: chainA.tokens[0] as string,
      outputToken: chainB.tokens[0] as string,
    };
    const mmKey = { 'x-api-key': accounts.moneyMover.apiKey };
    const load = { connections: CONNECTIONS, durationSeconds: DURATION };
    const warm = { connections: CONNECTIONS, durationSeconds: WARMUP };
    // 1 token a request: an offerer's open requests are judged together against its balance (1,000,000 tokens), and
    // scenario 4 leaves about 100,000 open for QUOTE_REQUEST_TTL_SECONDS.
    const quoteRequestBody = { offerer: OFFERER, recipient: OFFERER, inputAmount: '1000000', ...route };
    const record = (row: ScenarioRow) => {
      const s = options.rawPg ? withRawPgRatio(row, options.rawPg) : row;
      scenarios.push(s);
      logRow(s);
    };

    const ctx: ScenarioContext = {
      backend,
      server,
      seeder,
      seed,
      accounts,
      route,
      quoteRequestBody,
      mmKey,
      load,
      warm,
      postgres: options.databaseUrl !== undefined,
      pgProbe: options.pgProbe ?? null,
      record,
      nextBaseline,
    };
    // In the table's order, which matters (scenarios/scenario-table.ts says why).
    for (const scenario of seededScenarios) await scenario.run(ctx);

    const mean = baselines.reduce((sum, b) => sum + b.rate, 0) / Math.max(1, baselines.length);
    const first = baselines[0];
    const baselineRow: ScenarioRow[] = first
      ? [
          {
            ...first,
            rate: mean,
            notes: `mean of ${baselines.length} measurements, one next to each API scenario: ${baselines.map((b) => b.rate.toFixed(0)).join(', ')} req/s.`,
            raw: baselines.map((b) => b.raw),
          },
        ]
      : [];
    return {
      backend,
      seed: {
        orders: seed.orders,
        quoteRequests: seed.quoteRequests,
        quotes: seed.quotes,
        seedSeconds: seed.seconds,
      },
      scenarios: [...baselineRow, ...scenarios],
    };
  } finally {
    await seeder?.close();
    await server.stop();
    if (nodeFlags.length) say(`   CPU profile written to ${PROFILE_DIR}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
