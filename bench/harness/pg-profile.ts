import fs from 'node:fs';
import pg from 'pg';
import type { LoadResult } from './load.ts';
import { startLockSampler } from './lock-sampler.ts';

/** The PostgreSQL database a backend run uses: where the profile of its write scenarios looks. */
export interface PgProbe {
  readonly url: string;
  readonly name: string;
}

/** CPU ticks (user + system) of each `postgres` process on this machine, by pid: the server shares the cores. */
function postgresTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks.set(entry, Number(fields[11]) + Number(fields[12]));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks;
}

/** CPU ticks spent between two readings, by the processes alive at the second (one that exited is not counted). */
function ticksSince(before: Map<string, number>): number {
  let spent = 0;
  for (const [pid, now] of postgresTicks()) spent += now - (before.get(pid) ?? 0);
  return spent;
}

const TICKS_PER_SECOND = 100;

/**
 * Runs one measured load on PostgreSQL and says where its time went on the database side: the WAL it wrote per
 * request, PostgreSQL's own CPU (all its processes), and what its active sessions waited on (lock-sampler.ts).
 * Without a probe (the embedded run) it only runs the load.
 */
export async function profiledOnPg<T extends LoadResult>(
  probe: PgProbe | null,
  load: () => Promise<T>,
): Promise<{ result: T; note: string }> {
  if (!probe) return { result: await load(), note: '' };
  const client = new pg.Client({ connectionString: probe.url });
  await client.connect();
  try {
    const lsn = async () =>
      (await client.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]?.lsn ?? '0/0';
    const sampler = startLockSampler(probe.url, probe.name);
    const walBefore = await lsn();
    const ticksBefore = postgresTicks();
    const started = process.hrtime.bigint();
    const result = await load();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = (100 * ticksSince(ticksBefore)) / TICKS_PER_SECOND / seconds;
    const walAfter = await lsn();
    const waits = await sampler.stop();
    const { rows } = await client.query<{ bytes: string }>('select pg_wal_lsn_diff($1, $2)::text as bytes', [
      walAfter,
      walBefore,
    ]);
    const walPerRequest = Number(rows[0]?.bytes ?? 0) / Math.max(1, result.requests);
    const events = Object.entries(waits.waitEvents)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 4)
      .map(([name, n]) => `${name} ${((100 * n) / Math.max(1, waits.activeSessionSamples)).toFixed(0)} %`)
      .join(', ');
    const waiting = Object.values(waits.waitEvents).reduce((sum, n) => sum + n, 0);
    const onCpu = 100 - (100 * waiting) / Math.max(1, waits.activeSessionSamples);
    const busiest = waits.keys[0];
    const note =
      ` PostgreSQL: ${(walPerRequest / 1024).toFixed(1)} KB of WAL per request, its processes at ${cpu.toFixed(0)} % CPU;` +
      ` ${(waits.activeSessionSamples / Math.max(1, waits.samples)).toFixed(1)} sessions active on average, on CPU ${onCpu.toFixed(0)} % of the time, waiting on ${events || 'nothing'}` +
      (busiest ? `; busiest lock ${busiest.key} (max ${busiest.maxWaiters} waiting).` : '.');
    return { result, note };
  } finally {
    await client.end();
  }
}
