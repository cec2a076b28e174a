/** The PostgreSQL run's reference rows (8: raw writes) and the ratios other rows take against them and embedded. */
import type { RawWriteResult } from './pg-writes.ts';
import type { BackendRun, ScenarioRow } from './report.ts';

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
