import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ChainError } from '../chains/chain-error.ts';
import type { ChainLogger } from '../chains/chain-logger.ts';

export interface StartAnvilOptions {
  chainId: number;
  /** TCP port on 127.0.0.1; omit (or 0) to let the OS pick a free one. */
  port?: number;
  /** Load chain state from this file if it exists and dump it back on stop, so a devnet survives restarts. */
  stateFile?: string;
  /** Also dump the state every N seconds, so a crash loses at most N seconds (needs stateFile). */
  stateIntervalSeconds?: number;
  /** Override the anvil binary (default: $ANVIL_BIN, then the @foundry-rs/anvil platform package). */
  binary?: string;
  /** How long to wait for the RPC to answer (default 20 s). */
  startupTimeoutMs?: number;
  log?: ChainLogger;
}

export interface AnvilInstance {
  rpcUrl: string;
  chainId: number;
  port: number;
  /** Stops anvil (SIGTERM, which makes it dump --state; SIGKILL after 5 s). Safe to call twice. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** Path of the native anvil binary shipped by @foundry-rs/anvil for this platform. */
export function resolveAnvilBinary(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  // The @foundry-rs/anvil bin is a Node wrapper that re-spawns the native binary; spawning the native one
  // directly means our SIGTERM reaches anvil itself (and with it the state dump).
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    const require = createRequire(import.meta.url);
    const binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'anvil');
    if (existsSync(binary)) return binary;
  } catch {
    // fall through to PATH
  }
  return 'anvil';
}

/** Starts an anvil child process on loopback and resolves once its JSON-RPC answers eth_chainId. */
export async function startAnvil(options: StartAnvilOptions): Promise<AnvilInstance> {
  const { chainId, stateFile, log } = options;
  const args = ['--host', HOST, '--port', String(options.port ?? 0), '--chain-id', String(chainId)];
  if (stateFile) {
    args.push('--state', stateFile);
    if (options.stateIntervalSeconds) args.push('--state-interval', String(options.stateIntervalSeconds));
  }
  const binary = options.binary ?? resolveAnvilBinary();
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });

  // Never leave an orphaned anvil behind if the parent exits without calling stop().
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const port = await waitForListening(child, options.startupTimeoutMs ?? 20_000, (chunk) => {
      output = (output + chunk).slice(-4000);
    });
    const rpcUrl = `http://${HOST}:${port}`;
    await waitForRpc(rpcUrl, chainId, options.startupTimeoutMs ?? 20_000);
    log?.info({ chainId, rpcUrl, stateFile, pid: child.pid }, 'anvil started');

    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        process.removeListener('exit', killOnExit);
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
        log?.info({ chainId, rpcUrl }, 'anvil stopped');
      })();
      return stopping;
    };
    return { rpcUrl, chainId, port, stop };
  } catch (err) {
    process.removeListener('exit', killOnExit);
    child.kill('SIGKILL');
    // A binary that never started (ENOENT, EACCES) has no exit to wait for.
    if (child.pid !== undefined) await exited;
    throw new ChainError(`anvil (chain ${chainId}) failed to start: ${(err as Error).message}\n${output}`);
  }
}

/** Waits for anvil's "Listening on 127.0.0.1:<port>" line, which also tells us the OS-chosen port. */
function waitForListening(child: ChildProcess, timeoutMs: number, onOutput: (chunk: string) => void) {
  return new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => finish(new ChainError(`no "Listening on" line within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      onOutput(text);
      stdout += text;
      const match = /Listening on [\d.]+:(\d+)/.exec(stdout);
      if (match) finish(undefined, Number(match[1]));
    };
    const onExit = (code: number | null, signal: string | null) =>
      finish(new ChainError(`exited early (code ${code}, signal ${signal})`));
    const onError = (err: Error) => finish(err);
    function finish(err?: Error, port?: number) {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      // Keep draining the pipes so anvil never blocks on a full stdout buffer.
      child.stdout?.resume();
      child.stderr?.resume();
      if (err) reject(err);
      else resolve(port as number);
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

async function waitForRpc(rpcUrl: string, chainId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    let reported: string | undefined;
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      reported = ((await res.json()) as { result?: string }).result;
    } catch (err) {
      lastError = err;
    }
    if (reported !== undefined) {
      if (Number(reported) !== chainId) throw new ChainError(`RPC reports chain ${Number(reported)}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new ChainError(`RPC at ${rpcUrl} did not answer: ${String(lastError)}`);
}
