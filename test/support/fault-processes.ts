import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sleep } from './polling.ts';
import { freePort } from './processes.ts';

/**
 * The parts test/faults.test.ts takes away and brings back: a private PostgreSQL cluster, a private redis-server,
 * and the harness's anvil children.
 */
export async function waitFor<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | null | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + ms;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(`${what} not within ${ms} ms${lastError ? `: ${String(lastError)}` : ''}`);
}

// ---------------------------------------------------------------------------------------------------------------
// A private PostgreSQL cluster (never the machine's shared one on 5432).

export const PG_BIN = [
  '/usr/lib/postgresql/15/bin',
  ...safeList('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`),
].find((dir) => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl')));

export function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort().reverse();
  } catch {
    return [];
  }
}

/** initdb refuses root: as root, the cluster belongs to the postgres user and its tools run as that user. */
export function pgUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export function pgTool(tool: string, args: string[]): string {
  const binary = path.join(PG_BIN!, tool);
  const asPostgres = pgUser() !== null;
  return execFileSync(
    asPostgres ? 'runuser' : binary,
    asPostgres ? ['-u', 'postgres', '--', binary, ...args] : args,
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    },
  ).toString();
}

export async function startPrivateCluster() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-faults-pg-'));
  const user = pgUser();
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  pgTool('initdb', ['-A', 'trust', '-U', 'postgres', '-D', data, '--no-sync']);
  const start = () =>
    pgTool('pg_ctl', [
      '-D',
      data,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: () => pgTool('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    destroy() {
      try {
        pgTool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// A private redis-server.

export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) =>
  fs.existsSync(p),
);

export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER!,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    {
      stdio: 'ignore',
    },
  );
  await waitFor('redis-server to listen', 10_000, async () => {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.write('PING\r\n');
      });
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
    });
    return ok;
  });
  return child;
}

export async function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** The harness's anvil child of one devnet, found by its state file on its command line (Linux /proc). */
export function anvilPid(stateFile: string): number {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmdline[0]?.endsWith('anvil') && cmdline.includes(stateFile)) return Number(entry);
    } catch {}
  }
  throw new Error(`no anvil process with state file ${stateFile}`);
}

export async function waitForExit(pid: number, ms: number) {
  await waitFor(`anvil ${pid} to exit`, ms, async () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
}
