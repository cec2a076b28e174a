/** The settlement scenario's reference LP bot (`ferry lp`, streaming over WebSocket) in its own process. */
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Starts the bot for the LP with `apiKey`, filling from `privateKey`; keeps the end of its output. Its journal goes
 * in the run's own folder: one left in ./data by an earlier run holds nonces these fresh devnets never saw.
 */
export function startLpBot(baseUrl: string, apiKey: string, privateKey: string, journalFile: string) {
  const bot = spawn(
    process.execPath,
    [
      'bin/ferry.js',
      'lp',
      '--api-url',
      baseUrl,
      '--api-key',
      apiKey,
      '--private-key',
      privateKey,
      '--spread-bps',
      '30',
      '--journal',
      journalFile,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: process.env.BENCH_LP_LOG_LEVEL ?? 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Ended with the bench even if it dies on an uncaught error.
  const endBot = () => bot.kill('SIGTERM');
  process.once('exit', endBot);
  let botLog = '';
  bot.stdout?.on('data', (c: Buffer) => {
    botLog = (botLog + c.toString()).slice(-20_000);
  });
  bot.stderr?.on('data', (c: Buffer) => {
    botLog = (botLog + c.toString()).slice(-20_000);
  });
  return {
    log: () => botLog,
    async stop() {
      process.off('exit', endBot);
      const exited = new Promise((r) => bot.once('exit', r));
      bot.kill('SIGTERM');
      const timer = setTimeout(() => bot.kill('SIGKILL'), 10_000);
      if (bot.exitCode === null) await exited;
      clearTimeout(timer);
    },
  };
}
