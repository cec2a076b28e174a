import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFerryClient, FerryApiError } from '../../sdk/src/index.ts';
import { connectDemoApi, createRemoteDemoAccounts } from './demo-remote.ts';
import { DemoError, type DemoOptions, type DemoRun, sleep } from './demo-run.ts';
import { createDemoAccounts, startDemoApi, startDemoBot, startDemoChains } from './demo-setup.ts';
import { type DemoResult, runDemoSwap } from './demo-swap.ts';

/**
 * One whole swap on two fresh devnets, as a new user sees it: devnets, API with its settlement worker, a money
 * mover and a liquidity provider account, the reference LP bot quoting and filling in-process, and the money
 * mover's side (approve, request, accept, sign, swap) through the typed client SDK (`@ferry/client`). Throws
 * DemoError naming the failed step.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const dir = options.dataDir
    ? path.resolve(options.dataDir)
    : fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-demo-'));
  fs.mkdirSync(dir, { recursive: true });
  const run: DemoRun = {
    options,
    dir,
    started: Date.now(),
    step: 'devnets',
    aborted: false,
    devnets: null,
    app: null,
    bot: null,
    journal: null,
  };

  let timer: NodeJS.Timeout | undefined;
  const running = demoSteps(run);
  running.catch(() => {});
  try {
    return await Promise.race([
      running,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new DemoError(`timed out after ${options.timeoutMs / 1000} s`, { retryable: true })),
          options.timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    const message =
      error instanceof FerryApiError ? `${error.code}: ${error.message}` : (error as Error).message;
    options.print(`  ✗ ${run.step.padEnd(14)} ${message}`);
    throw new DemoError(`step "${run.step}" failed: ${message}`, { cause: error });
  } finally {
    run.aborted = true;
    clearTimeout(timer);
    // Let the steps stop at their next checkpoint, so whatever they started (anvil children) is cleaned up.
    await Promise.race([running.catch(() => {}), sleep(20_000)]);
    await run.bot?.stop().catch(() => {});
    await run.journal?.close().catch(() => {});
    await run.app?.close().catch(() => {});
    await run.devnets?.stop().catch(() => {});
    if (!options.dataDir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The demo's steps in order; each names itself in `run.step` first. */
async function demoSteps(run: DemoRun): Promise<DemoResult> {
  const { api } = run.options;
  if (api) return remoteDemoSteps(run, api);
  run.options.print(`Ferry demo: one cross-chain swap on two local devnets (data in ${run.dir})`);
  const chains = await startDemoChains(run);
  const { app, baseUrl } = await startDemoApi(run, chains);
  const { mmKey, lpKey } = await createDemoAccounts(run, app);
  const mm = createFerryClient({ baseUrl, apiKey: mmKey });
  startDemoBot(run, baseUrl, lpKey);
  return runDemoSwap(run, chains, mm);
}

/**
 * The same swap against a Ferry that is already running on its own devnets (`npm start`): its explorer shows the
 * swap as it happens. Nothing of that Ferry is stopped afterwards.
 */
async function remoteDemoSteps(run: DemoRun, api: string): Promise<DemoResult> {
  run.options.print(`Ferry demo: one cross-chain swap through the Ferry at ${api} (watch it at ${api}/)`);
  const chains = await connectDemoApi(run, api);
  const { mmKey, lpKey } = await createRemoteDemoAccounts(run);
  const mm = createFerryClient({ baseUrl: api, apiKey: mmKey });
  startDemoBot(run, api, lpKey);
  return runDemoSwap(run, chains, mm);
}
