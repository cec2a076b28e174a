import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh database on a PostgreSQL server, and how to drop it (FORCE: a crashed bench may leave sessions). */
export async function createPgDatabase(
  serverUrl: string,
  prefix = 'ferry_bench',
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const base = new URL(serverUrl);
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  base.pathname = `/${name}`;
  return {
    url: base.toString(),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: admin.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface RawWriteResult {
  readonly transactionsPerSec: number;
  readonly transactions: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly seconds: number;
  readonly pool: number;
  readonly callers: number;
  readonly advisoryLock: boolean;
}

/**
 * What PostgreSQL itself sustains on this machine for a write shaped like Ferry's (begin, two inserts, commit):
 * `callers` concurrent loops over a `pg` Pool of `pool` for `seconds`, in a database created and dropped here.
 * With `advisoryLock`, each transaction also takes one `pg_advisory_xact_lock` on a fixed key before its second
 * insert: the shape of a write path that serialises commits on one lock.
 */
export async function measureRawPgWrites(
  serverUrl: string,
  options: { seconds: number; pool?: number; callers?: number; advisoryLock?: boolean },
): Promise<RawWriteResult> {
  const pool = options.pool ?? 10;
  const callers = options.callers ?? 50;
  const db = await createPgDatabase(serverUrl, 'ferry_bench_raw');
  const clients = new pg.Pool({ connectionString: db.url, max: pool });
  // An idle client's connection error (e.g. the server restarting) is the measurement's problem, not a crash.
  clients.on('error', () => {});
  try {
    await clients.query(
      'CREATE TABLE parent (id bigserial PRIMARY KEY, payload text NOT NULL, created_at bigint NOT NULL)',
    );
    await clients.query(
      'CREATE TABLE child (id bigserial PRIMARY KEY, parent_id bigint NOT NULL, payload text NOT NULL, created_at bigint NOT NULL)',
    );
    const payload = randomBytes(200).toString('hex');
    const latencies: number[] = [];
    const deadline = Date.now() + options.seconds * 1000;
    const started = process.hrtime.bigint();
    const one = async () => {
      const t0 = process.hrtime.bigint();
      const client = await clients.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<{ id: string }>(
          'INSERT INTO parent (payload, created_at) VALUES ($1, $2) RETURNING id',
          [payload, Date.now()],
        );
        if (options.advisoryLock) await client.query('SELECT pg_advisory_xact_lock(7331)');
        await client.query('INSERT INTO child (parent_id, payload, created_at) VALUES ($1, $2, $3)', [
          rows[0]?.id,
          payload,
          Date.now(),
        ]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    };
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (Date.now() < deadline) await one();
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    latencies.sort((a, b) => a - b);
    const at = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    return {
      transactionsPerSec: latencies.length / seconds,
      transactions: latencies.length,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      seconds,
      pool,
      callers,
      advisoryLock: Boolean(options.advisoryLock),
    };
  } finally {
    await clients.end();
    await db.drop();
  }
}
