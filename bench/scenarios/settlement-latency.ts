/** Scenario 11 on its own embedded Ferry with the settlement worker on: instant blocks (11a), then 1 s blocks (11b). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_PROVE_AFTER_SECONDS } from '../../src/lp/prove-batch-defaults.ts';
import { nodeFlags, QUICK, say } from '../harness/bench-settings.ts';
import { logRow } from '../harness/load-row.ts';
import type { BackendRun, ScenarioRow } from '../harness/report.ts';
import { startFerry } from '../harness/server.ts';
import { describeSteps, type SettlementResult } from './settlement-breakdown.ts';
import { prepareSettlement } from './settlement-parties.ts';

export async function runSettlement(): Promise<BackendRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-bench-settle-'));
  const databaseUrl = `sqlite:${path.join(dataDir, 'ferry.sqlite')}`;
  say('\n== settlement latency (11): embedded Ferry with its worker, the reference LP bot streaming');
  const server = await startFerry({ dataDir, databaseUrl, nodeFlags, env: { WORKER: 'true' } });
  const scenarios: ScenarioRow[] = [];
  try {
    const parties = await prepareSettlement(server, { dataDir, databaseUrl });
    try {
      const instant = QUICK ? 5 : 50;
      const window = DEFAULT_PROVE_AFTER_SECONDS * 1000;
      scenarios.push(settlementRow('11a', await parties.run('instant', instant, 1000, 60_000, null), window));
      logRow(scenarios.at(-1) as ScenarioRow);
      await parties.intervalMining(1);
      const slow = QUICK ? 3 : 20;
      scenarios.push(settlementRow('11b', await parties.run('1 s blocks', slow, 3000, 120_000, 1), null));
      logRow(scenarios.at(-1) as ScenarioRow);
    } finally {
      await parties.close();
    }
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return {
    backend: 'settlement (embedded, worker on, instant devnets then 1 s blocks)',
    seed: {},
    scenarios,
  };
}

/**
 * 11a / 11b: swap → completed, with the time split between chains, the LP bot and Ferry. On instant devnets (11a) the
 * recipient's wait, swap → filled, must stay under 300 ms, and swap → completed under 2 s beyond the bot's proof
 * window (its fills are proven in batches: the LP's repayment waits, the recipient does not).
 */
export function settlementRow(id: string, r: SettlementResult, proveWindowMs: number | null): ScenarioRow {
  const observeOk = Object.values(r.steps).every(
    (s) => s.observeAllowanceMs === null || s.observeP50Ms <= s.observeAllowanceMs,
  );
  const completedTarget = proveWindowMs === null ? null : 2000 + proveWindowMs;
  return {
    id,
    name: `settlement: swap → completed (${r.blocks}, LP bot streaming)`,
    unit: 'swaps',
    rate: r.completed,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    cpuPercent: 0,
    peakRssMb: 0,
    ratio: null,
    target:
      completedTarget !== null
        ? `filled p50 < 300 ms; completed p50 < ${completedTarget} ms (2 s + the bot's proof window)`
        : '≤ 1 block beyond confirmations per step',
    pass:
      r.completed === r.swaps &&
      (completedTarget !== null ? r.filledP50Ms < 300 && r.p50Ms < completedTarget : observeOk),
    notes: `${r.completed}/${r.swaps} completed in ${r.seconds.toFixed(0)} s; swap → filled p50/p99 ${r.filledP50Ms}/${r.filledP99Ms} ms; share of the time waiting on chains (mempool → block) ${(100 * r.chainShare).toFixed(1)} %, the LP bot ${(100 * r.lpShare).toFixed(1)} %, Ferry ${(100 * r.ferryShare).toFixed(1)} %; ${describeSteps(r)}.${r.unseenPending ? ` ${r.unseenPending} transactions not seen pending.` : ''}${r.failures.length ? ` Failures: ${r.failures.join('; ')}` : ''}${r.botOutput ? ` LP bot said: ${r.botOutput}` : ''}`,
    raw: r,
  };
}
