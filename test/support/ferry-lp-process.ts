import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sleep } from './polling.ts';

const ferryBin = fileURLToPath(new URL('../../bin/ferry.js', import.meta.url));

export interface FerryLpProcessOptions {
  apiUrl: string;
  apiKey: string;
  privateKey: string;
  spreadBps: number;
  journalFile: string;
  /** LP_FAULT_INJECT: where the bot kills itself (e.g. `after-record:fill`); empty for none. */
  faults?: string;
  /** More flags, as an operator adds them (e.g. `--confirmations 1`). */
  args?: readonly string[];
}

/** `ferry lp` as an operator runs it: its own process, its journal file, JSON logs on stdout. */
export function spawnFerryLp(options: FerryLpProcessOptions): ChildProcess {
  const args = [
    'lp',
    '--api-url',
    options.apiUrl,
    '--spread-bps',
    String(options.spreadBps),
    ...(options.args ?? []),
  ];
  return spawn(process.execPath, [ferryBin, ...args, '--poll-ms', '300', '--journal', options.journalFile], {
    env: {
      ...process.env,
      FERRY_API_KEY: options.apiKey,
      LP_PRIVATE_KEY: options.privateKey,
      LP_FAULT_INJECT: options.faults ?? '',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** How the process ended: its signal, or its exit code. */
export const exitOf = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );

/** SIGTERM, and the process must be gone within `ms` whatever it was waiting on. */
export async function stopWithin(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = exitOf(child);
  child.kill('SIGTERM');
  await Promise.race([
    gone,
    sleep(ms).then(() => {
      throw new Error(`ferry lp did not stop within ${ms} ms of SIGTERM`);
    }),
  ]);
}
