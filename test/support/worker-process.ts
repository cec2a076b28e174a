import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { DEVNET_ATTESTER_KEY, DEVNET_RELAYER_KEY } from '../../src/devnet/devnet.ts';
import type { Harness } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A `ferry worker` child process on the harness's database and chains; `env` overrides its settings. */
export function startWorkerProcess(h: Harness, faultInject: string[] = [], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, ['bin/ferry.js', 'worker'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: h.config.databaseUrl,
      CHAIN_REGISTRY: h.registryFile,
      RELAYER_PRIVATE_KEY: DEVNET_RELAYER_KEY,
      ATTESTER_PRIVATE_KEY: DEVNET_ATTESTER_KEY,
      WORKER_POLL_MS: '50',
      // A killed worker's lease must run out quickly for the restarted one to take over.
      WORKER_LEASE_MS: '1000',
      FERRY_FAULT_INJECT: faultInject.join(','),
      LOG_LEVEL: process.env.FERRY_TEST_LOG ?? 'silent',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
