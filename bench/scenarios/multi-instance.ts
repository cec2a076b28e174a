import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEVNET_WORKER_KEYS } from '../../src/devnet/devnet.ts';
import { drive, type LoadResult } from '../harness/load.ts';
import { type LockSampleReport, startLockSampler } from '../harness/lock-sampler.ts';
import { createPgDatabase } from '../harness/pg-writes.ts';
import { type RunningServer, startFerry, startFerryWorker } from '../harness/server.ts';
import { OFFERER, Seeder } from '../seed/seeder.ts';

export interface MultiInstanceResult {
  readonly endpoint: string;
  readonly connections: number;
  readonly one: { readonly rate: number; readonly load: LoadResult; readonly locks: LockSampleReport };
  readonly two: {
    readonly rate: number;
    readonly perInstance: readonly number[];
    readonly loads: readonly LoadResult[];
    readonly locks: LockSampleReport;
  };
  /** two.rate / one.rate. */
  readonly scaling: number;
}

/**
 * Scenario 9: two API processes (`ferry start`, WORKER=false; the second on the first's registry file) and one
 * `ferry worker`, all on one fresh PostgreSQL database and one Redis. POST /api/v1/quote-requests is driven first
 * against instance A alone with `connections`, then against both at once with half the connections each (the
 * same offered concurrency), rates summed. PostgreSQL's lock waits are sampled during both phases.
 */
export async function runMultiInstance(options: {
  pgServerUrl: string;
  redisUrl: string;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  say: (line: string) => void;
}): Promise<MultiInstanceResult> {
  const db = await createPgDatabase(options.pgServerUrl);
  const dirs = [0, 1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-bench-mi-')));
  const [dirA, dirB, dirW] = dirs as [string, string, string];
  const servers: RunningServer[] = [];
  let seeder: Seeder | null = null;
  try {
    const common = { databaseUrl: db.url, redisUrl: options.redisUrl };
    const a = await startFerry({ dataDir: dirA, ...common });
    servers.push(a);
    const registry = path.join(dirA, 'chains.json');
    const b = await startFerry({ dataDir: dirB, ...common, chainRegistry: registry });
    servers.push(b);
    servers.push(
      await startFerryWorker({
        dataDir: dirW,
        ...common,
        chainRegistry: registry,
        workerKeys: DEVNET_WORKER_KEYS,
      }),
    );
    options.say(`   9: instances at ${a.baseUrl} and ${b.baseUrl}, one worker, database ${db.name}`);
    seeder = await Seeder.open(db.url, registry);
    const accounts = await seeder.createAccounts(1);
    const [chainA, chainB] = seeder.chains;
    if (!chainA || !chainB) throw new Error('the registry needs two chains');
    const spec = (connections: number, durationSeconds: number) => ({
      method: 'POST' as const,
      path: '/api/v1/quote-requests',
      headers: { 'x-api-key': accounts.moneyMover.apiKey },
      body: {
        offerer: OFFERER,
        recipient: OFFERER,
        inputAmount: '1000000',
        inputChain: chainA.name,
        outputChain: chainB.name,
        inputToken: chainA.tokens[0],
        outputToken: chainB.tokens[0],
      },
      connections,
      durationSeconds,
    });
    const half = Math.max(1, Math.floor(options.connections / 2));
    await Promise.all([a, b].map((s) => drive(s, spec(half, options.warmupSeconds))));

    const sampler1 = startLockSampler(db.url, db.name);
    const one = await drive(a, spec(options.connections, options.durationSeconds));
    const locks1 = await sampler1.stop();

    const sampler2 = startLockSampler(db.url, db.name);
    const loads = await Promise.all([a, b].map((s) => drive(s, spec(half, options.durationSeconds))));
    const locks2 = await sampler2.stop();
    const perInstance = loads.map((l) => l.reqPerSec);
    const total = perInstance.reduce((x, y) => x + y, 0);
    return {
      endpoint: 'POST /api/v1/quote-requests',
      connections: options.connections,
      one: { rate: one.reqPerSec, load: one, locks: locks1 },
      two: { rate: total, perInstance, loads, locks: locks2 },
      scaling: one.reqPerSec > 0 ? total / one.reqPerSec : 0,
    };
  } finally {
    await seeder?.close();
    for (const s of servers.reverse()) await s.stop();
    await db.drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One line on what queued: the busiest lock keys, or that none had two waiters at once. */
export function describeLocks(r: LockSampleReport): string {
  const top = r.keys
    .slice(0, 3)
    .map((k) => `${k.key} (max ${k.maxWaiters} waiting, in ${k.samplesWaiting} samples)`)
    .join('; ');
  const events = Object.entries(r.waitEvents)
    .sort((x, y) => y[1] - x[1])
    .slice(0, 4)
    .map(([name, n]) => `${name} ${((100 * n) / Math.max(1, r.activeSessionSamples)).toFixed(0)} %`)
    .join(', ');
  return `${r.samples} samples every ${r.intervalMs} ms: lock waits in ${r.samplesWithLockWait}, two or more on one key in ${r.samplesWithQueue} (max ${r.maxWaitersOnOneKey})${top ? `; ${top}` : ''}; waits of active sessions: ${events || 'none'}`;
}
