/** Report rows of the scenarios that compare with a reference of their own: 8, 9 and 11, and the PostgreSQL ratios. */
import type { LoadResult } from './load.ts';
import { unexpectedResponses } from './load-row.ts';
import { describeLocks, type MultiInstanceResult } from './multi-instance.ts';
import type { RawWriteResult } from './pg-writes.ts';
import type { BackendRun, ScenarioRow } from './report.ts';
import { describeSteps, type SettlementResult } from './settlement-breakdown.ts';

const mb = (bytes: number) => bytes / 2 ** 20;
const cpu = (l: LoadResult) => l.proc.cpuPercent;

/**
 * PostgreSQL write scenarios also compare with the raw `pg` write rate of the same run (scenario 8); their
 * PostgreSQL targets are shares of what the database itself sustains.
 */
const PG_WRITE_TARGETS = new Map([
  ['4', 0.5],
  ['5', 0.3],
  ['6b', 0.4],
]);
export function withRawPgRatio(s: ScenarioRow, raw: RawWriteResult): ScenarioRow {
  const target = PG_WRITE_TARGETS.get(s.id);
  if (target === undefined) return s;
  const ratio = s.rate / raw.transactionsPerSec;
  const vs = { ratio, of: 'raw PG' };
  return { ...s, vs, target: `≥ ${target} × raw PG writes`, pass: !s.failure && ratio >= target };
}

export function rawPgRow(id: string, r: RawWriteResult): ScenarioRow {
  return {
    id,
    name: `raw PostgreSQL writes: begin, 2 inserts${r.advisoryLock ? ', one advisory lock' : ''}, commit`,
    unit: 'tx/s',
    rate: r.transactionsPerSec,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    cpuPercent: 0,
    peakRssMb: 0,
    ratio: null,
    target: null,
    pass: null,
    notes: `${r.callers} concurrent callers on a pg Pool of ${r.pool}, ${r.seconds.toFixed(1)} s, ${r.transactions} transactions, in a database of its own (created and dropped); no Ferry process involved (CPU and RSS columns not measured).`,
    raw: r,
  };
}

/** Public orders on PostgreSQL against the embedded rate of the same run (target: ≥ 0.8 ×). */
export function compareWithEmbedded(pgRows: ScenarioRow[], embedded: BackendRun | null) {
  const mine = pgRows.findIndex((r) => r.id === '2');
  const theirs = embedded?.scenarios.find((r) => r.id === '2');
  const row2 = pgRows[mine];
  if (!row2 || !theirs) return;
  const ratio = row2.rate / theirs.rate;
  pgRows[mine] = {
    ...row2,
    vs: { ratio, of: 'embedded' },
    target: `${row2.target}; ≥ 0.8 × embedded`,
    pass: (row2.pass ?? true) && ratio >= 0.8,
  };
}

/** 9a (instance A alone) and 9b (both instances, summed), with what the lock sampler saw in each phase. */
export function multiInstanceRows(r: MultiInstanceResult, raw: RawWriteResult): ScenarioRow[] {
  const oneFailure = unexpectedResponses(r.one.load);
  const twoFailure = r.two.loads.map(unexpectedResponses).find((f) => f !== undefined);
  const one: ScenarioRow = {
    id: '9a',
    name: `one instance: ${r.endpoint}`,
    unit: 'req/s',
    rate: r.one.rate,
    p50Ms: r.one.load.p50Ms,
    p99Ms: r.one.load.p99Ms,
    cpuPercent: cpu(r.one.load),
    peakRssMb: mb(r.one.load.proc.peakRssBytes),
    ratio: null,
    vs: { ratio: r.one.rate / raw.transactionsPerSec, of: 'raw PG' },
    target: null,
    pass: oneFailure ? false : null,
    ...(oneFailure ? { failure: oneFailure } : {}),
    notes: `${oneFailure ? `FAILED: ${oneFailure}. ` : ''}${r.connections} connections to instance A while B and the worker idle. Locks: ${describeLocks(r.one.locks)}.`,
    raw: r.one,
  };
  const queued = r.two.locks.samplesWithQueue > 0;
  const two: ScenarioRow = {
    id: '9b',
    name: `two instances + worker: ${r.endpoint}, summed`,
    unit: 'req/s',
    rate: r.two.rate,
    p50Ms: Math.max(...r.two.loads.map((l) => l.p50Ms)),
    p99Ms: Math.max(...r.two.loads.map((l) => l.p99Ms)),
    cpuPercent: r.two.loads.reduce((sum, l) => sum + cpu(l), 0),
    peakRssMb: Math.max(...r.two.loads.map((l) => mb(l.proc.peakRssBytes))),
    ratio: null,
    vs: { ratio: r.scaling, of: 'one instance' },
    target: '≥ 1 × one instance; no queue on one lock',
    pass: !twoFailure && r.scaling >= 1 && !queued,
    ...(twoFailure ? { failure: twoFailure } : {}),
    notes: `${twoFailure ? `FAILED: ${twoFailure}. ` : ''}${Math.floor(r.connections / 2)} connections to each instance (${r.two.perInstance.map((x) => x.toFixed(0)).join(' + ')} req/s; ${(r.two.rate / raw.transactionsPerSec).toFixed(2)} × raw PG); CPU and p50/p99 are the two instances' sum and worst. Locks: ${describeLocks(r.two.locks)}.${queued ? ' Sessions queued on one lock key.' : ''}`,
    raw: r.two,
  };
  return [one, two];
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
