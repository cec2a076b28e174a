import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const CHILD = path.join(ROOT, 'test', 'fixtures', 'shutdown-child.ts');
const DEADLINE_MS = 1000;

/** Runs the fixture, sends `signal` once it is ready (when given), and waits for it to exit. */
function runChild(env: Record<string, string>, signal?: NodeJS.Signals) {
  const child = spawn(TSX, [CHILD], {
    cwd: ROOT,
    env: { ...process.env, DEADLINE_MS: String(DEADLINE_MS), ...env },
  });
  let output = '';
  let signalledAt = 0;
  const onData = (data: Buffer) => {
    output += data.toString();
    if (signal && signalledAt === 0 && output.includes('ready\n')) {
      signalledAt = Date.now();
      child.kill(signal);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise<{ code: number | null; output: string; afterSignalMs: number }>((resolve) => {
    child.once('exit', (code) => resolve({ code, output, afterSignalMs: Date.now() - signalledAt }));
  });
}

const logLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('process shutdown', () => {
  it('gives up on a part that never stops at the deadline, names it and exits non-zero', async () => {
    const { code, output, afterSignalMs } = await runChild({}, 'SIGTERM');
    expect(code).toBe(1);
    expect(afterSignalMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(afterSignalMs).toBeLessThan(DEADLINE_MS + 5000);
    const report = logLines(output).find((line) => Array.isArray(line.parts));
    expect(report?.parts, output).toEqual(['stuck worker']);
    expect(report?.msg).toBe('shutdown deadline passed; not stopped: stuck worker');
  }, 30_000);

  it('logs an unhandled rejection with its error and ends the process, 75 for a retryable error', async () => {
    const { code, output } = await runChild({ MODE: 'reject' });
    const fatal = logLines(output).find((line) => line.msg === 'unhandled rejection; shutting down');
    expect(fatal, output).toBeDefined();
    expect((fatal?.err as { type?: string } | undefined)?.type).toBe('StoreUnavailableError');
    expect(code).toBe(75);
  }, 30_000);
});
