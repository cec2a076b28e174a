/** Scenario 9: two API instances and one worker on PostgreSQL + Redis, as rows 9a (one instance) and 9b (both). */
import { CONNECTIONS, DURATION, say, WARMUP } from '../harness/bench-settings.ts';
import type { LoadResult } from '../harness/load.ts';
import { logRow, unexpectedResponses } from '../harness/load-row.ts';
import type { RawWriteResult } from '../harness/pg-writes.ts';
import type { ScenarioRow } from '../harness/report.ts';
import type { PostgresContext } from '../harness/scenario.ts';
import { describeLocks, type MultiInstanceResult, runMultiInstance } from './multi-instance.ts';

const mb = (bytes: number) => bytes / 2 ** 20;
const cpu = (l: LoadResult) => l.proc.cpuPercent;

export async function multiInstanceScenario({
  serverUrl,
  redisUrl,
  raw,
}: PostgresContext): Promise<ScenarioRow[]> {
  // The table declares the need for Redis: the PostgreSQL run skips this scenario without it.
  if (!redisUrl) throw new Error('scenario 9 needs BENCH_REDIS_URL');
  say('\n== PostgreSQL + Redis: two API instances and one worker (9)');
  const r = await runMultiInstance({
    pgServerUrl: serverUrl,
    redisUrl,
    // Under a serialising lock a write can take seconds: 2 s (quick) could end before any completes.
    durationSeconds: Math.max(DURATION, 5),
    warmupSeconds: WARMUP,
    connections: CONNECTIONS,
    say,
  });
  const [one, two] = multiInstanceRows(r, raw) as [ScenarioRow, ScenarioRow];
  logRow(one);
  logRow(two);
  return [one, two];
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
