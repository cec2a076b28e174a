import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { childPids } from './proc.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every process the bench started and that still runs: ended if the bench itself dies (an uncaught error). */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGTERM');
});

/** A port the OS says is free right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  readonly pid: number;
  readonly baseUrl: string;
  /** Processes the server started (the anvil devnets), for their CPU. */
  helperPids(): number[];
  /** The last lines it printed, for error reports. */
  output(): string;
  stop(): Promise<void>;
}

async function waitHealthy(url: string, child: ChildProcess, log: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${log()}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server not healthy at ${url} after ${timeoutMs} ms:\n${log()}`);
}

async function waitAlive(child: ChildProcess, log: () => string, ms: number) {
  await new Promise((r) => setTimeout(r, ms));
  if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}:\n${log()}`);
}

/** Starts a node process; resolves once `healthPath` answers 200, or (null: no HTTP) once it has stayed up 2 s. */
function launch(
  args: string[],
  env: Record<string, string>,
  port: number,
  healthPath: string | null,
  timeoutMs = 60_000,
): Promise<RunningServer> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const baseUrl = `http://127.0.0.1:${port}`;
  const pid = child.pid as number;
  const server: RunningServer = {
    pid,
    baseUrl,
    helperPids: () => childPids(pid),
    output: () => tail,
    async stop() {
      if (child.exitCode !== null) return;
      const helpers = childPids(pid);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      // A server killed hard leaves its devnets behind: end them by pid.
      for (const helper of helpers) {
        try {
          process.kill(helper, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
    },
  };
  const ready =
    healthPath === null
      ? waitAlive(child, () => tail, 2000)
      : waitHealthy(`${baseUrl}${healthPath}`, child, () => tail, timeoutMs);
  return ready.then(
    () => server,
    async (error) => {
      await server.stop();
      throw error;
    },
  );
}

export interface FerryLaunch {
  readonly dataDir: string;
  readonly databaseUrl?: string;
  readonly redisUrl?: string;
  /** Extra node flags, e.g. --cpu-prof. */
  readonly nodeFlags?: readonly string[];
  /** A registry file (another instance's `chains.json`): use its chains instead of starting devnets. */
  readonly chainRegistry?: string;
  /** More environment (e.g. WORKER=true), applied last. */
  readonly env?: Readonly<Record<string, string>>;
}

function ferryEnv(options: FerryLaunch, port: number, devA: number, devB: number): Record<string, string> {
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    DEVNET_PORT_A: String(devA),
    DEVNET_PORT_B: String(devB),
    LOG_LEVEL: 'warn',
    WORKER: 'false',
    // The limiter hook still runs on every request (realistic); it just never says no.
    RATE_LIMIT_API_KEY: '1000000',
    RATE_LIMIT_SESSION: '1000000',
    RATE_LIMIT_IP: '1000000',
    // Fan-out: 1,000 SSE clients and 200 WebSocket subscribers come from one IP and one API key.
    STREAM_LIMIT: '1000',
    // A scenario's requests outlive the run (the quote scenarios send validFor 600 for their quotes), so the expiry
    // sweep of one scenario's tens of thousands of leftovers, each with its event, never runs inside the next one's
    // measurement.
    QUOTE_REQUEST_TTL_SECONDS: '3600',
    CHAIN_REGISTRY: options.chainRegistry ?? '',
  };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  if (options.redisUrl) {
    env.REDIS_URL = options.redisUrl;
    // One prefix per bench run: instances of one run share limits and fan-out, runs never mix.
    env.REDIS_KEY_PREFIX = `ferry-bench-${process.pid}:`;
  }
  return { ...env, ...options.env };
}

/** `node bin/ferry.js start` on the built-in devnets, with limits high enough that the limiter never refuses. */
export async function startFerry(options: FerryLaunch): Promise<RunningServer> {
  const [port, devA, devB] = [await freePort(), await freePort(), await freePort()];
  return launch(
    [...(options.nodeFlags ?? []), 'bin/ferry.js', 'start'],
    ferryEnv(options, port, devA, devB),
    port,
    '/readyz',
  );
}

/** `node bin/ferry.js worker` (settlement only, no HTTP) on a registry file; the devnets' worker keys. */
export async function startFerryWorker(
  options: FerryLaunch & { chainRegistry: string; workerKeys: { relayer: string; attester: string } },
): Promise<RunningServer> {
  const env = {
    ...ferryEnv(options, 0, 0, 0),
    WORKER: 'true',
    RELAYER_PRIVATE_KEY: options.workerKeys.relayer,
    ATTESTER_PRIVATE_KEY: options.workerKeys.attester,
  };
  delete (env as Record<string, string>).PORT;
  delete (env as Record<string, string>).DEVNET_PORT_A;
  delete (env as Record<string, string>).DEVNET_PORT_B;
  return launch([...(options.nodeFlags ?? []), 'bin/ferry.js', 'worker'], env, 0, null);
}

/** Scenario 1's bare Fastify process, on the same Node, loader and log level. */
export async function startBaseline(nodeFlags: readonly string[] = []): Promise<RunningServer> {
  const port = await freePort();
  return launch(
    [...nodeFlags, '--import', 'tsx/esm', 'bench/harness/baseline-server.ts'],
    { PORT: String(port), LOG_LEVEL: 'warn' },
    port,
    '/baseline',
  );
}

/** Scenario 7's bare `node:http` fan-out (SSE and WebSocket in Ferry's wire format), on the same Node and loader. */
export async function startBareFanout(): Promise<RunningServer> {
  const port = await freePort();
  return launch(
    ['--import', 'tsx/esm', 'bench/harness/bare-fanout-server.ts'],
    { PORT: String(port) },
    port,
    '/healthz',
  );
}
