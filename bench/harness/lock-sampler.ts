import pg from 'pg';

export interface LockKeyStat {
  /** e.g. `advisory 0/7331/1`, `transactionid`, `relation orders`, `tuple quote_requests`. */
  readonly key: string;
  /** Sum over samples of the sessions waiting on this key. */
  readonly waiterSamples: number;
  /** The most sessions seen waiting on this key in one sample. */
  readonly maxWaiters: number;
  /** Samples in which at least one session waited on it. */
  readonly samplesWaiting: number;
}

export interface LockSampleReport {
  readonly samples: number;
  readonly intervalMs: number;
  /** Samples where some session of the database waited on a heavyweight lock (wait_event_type = 'Lock'). */
  readonly samplesWithLockWait: number;
  /** Samples where two or more sessions waited on the same key at once: a queue on one lock. */
  readonly samplesWithQueue: number;
  readonly maxWaitersOnOneKey: number;
  readonly keys: readonly LockKeyStat[];
  /** Every wait of an active session, by `wait_event_type/wait_event` (IO, LWLock, Client...), for context. */
  readonly waitEvents: Readonly<Record<string, number>>;
  readonly activeSessionSamples: number;
  /** Samples that failed (the query errored); sampling stops after a few. */
  readonly errors: number;
}

/**
 * Samples `pg_stat_activity` (joined to the ungranted rows of `pg_locks`) of one database every `intervalMs` while
 * a load runs, grouping sessions that wait on a heavyweight lock by the lock they wait for. Advisory locks are
 * keyed by their (classid, objid, objsubid), relation and tuple locks by table, transaction-id waits by kind.
 */
export function startLockSampler(databaseUrl: string, database: string, intervalMs = 50) {
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: 'ferry-bench-lock-sampler',
  });
  const keys = new Map<string, { waiterSamples: number; maxWaiters: number; samplesWaiting: number }>();
  const waitEvents: Record<string, number> = {};
  let samples = 0;
  let samplesWithLockWait = 0;
  let samplesWithQueue = 0;
  let activeSessionSamples = 0;
  let stopped = false;

  const sampleOnce = async () => {
    const { rows } = await client.query<{
      pid: number;
      state: string | null;
      wait_event_type: string | null;
      wait_event: string | null;
      locktype: string | null;
      relation: string | null;
      classid: string | null;
      objid: string | null;
      objsubid: string | null;
    }>(
      `SELECT a.pid, a.state, a.wait_event_type, a.wait_event, l.locktype, l.relation::regclass::text AS relation,
              l.classid::text, l.objid::text, l.objsubid::text
         FROM pg_stat_activity a
         LEFT JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted
        WHERE a.datname = $1 AND a.pid <> pg_backend_pid() AND a.state <> 'idle'`,
      [database],
    );
    samples++;
    const perKey = new Map<string, number>();
    for (const row of rows) {
      activeSessionSamples++;
      if (row.wait_event_type) {
        const name = `${row.wait_event_type}/${row.wait_event}`;
        waitEvents[name] = (waitEvents[name] ?? 0) + 1;
      }
      if (row.wait_event_type !== 'Lock' || !row.locktype) continue;
      const key =
        row.locktype === 'advisory'
          ? `advisory ${row.classid}/${row.objid}/${row.objsubid}`
          : row.relation
            ? `${row.locktype} ${row.relation}`
            : row.locktype;
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
    }
    if (perKey.size > 0) samplesWithLockWait++;
    let queued = false;
    for (const [key, waiters] of perKey) {
      const stat = keys.get(key) ?? { waiterSamples: 0, maxWaiters: 0, samplesWaiting: 0 };
      stat.waiterSamples += waiters;
      stat.maxWaiters = Math.max(stat.maxWaiters, waiters);
      stat.samplesWaiting++;
      keys.set(key, stat);
      if (waiters >= 2) queued = true;
    }
    if (queued) samplesWithQueue++;
  };

  // A sampler failure must not end the bench: it is counted and sampling stops.
  client.on('error', () => {});
  let errors = 0;
  const done = (async () => {
    await client.connect();
    while (!stopped) {
      const next = Date.now() + intervalMs;
      try {
        await sampleOnce();
      } catch {
        errors++;
        if (errors > 5) break;
      }
      const wait = next - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await client.end().catch(() => {});
  })().catch(() => {
    errors++;
  });

  return {
    async stop(): Promise<LockSampleReport> {
      stopped = true;
      await done;
      const list = [...keys.entries()]
        .map(([key, s]) => ({ key, ...s }))
        .sort((a, b) => b.waiterSamples - a.waiterSamples);
      return {
        samples,
        intervalMs,
        samplesWithLockWait,
        samplesWithQueue,
        maxWaitersOnOneKey: list.reduce((m, k) => Math.max(m, k.maxWaiters), 0),
        keys: list,
        waitEvents,
        activeSessionSamples,
        errors,
      };
    },
  };
}
