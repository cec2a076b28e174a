import type { FerryAppInstance } from '../app.ts';
import type { Devnets } from '../devnet/devnet.ts';
import { FerryError } from '../domain/ferry-error.ts';
import type { LpBot } from '../lp/lp-bot.ts';
import type { BotLog } from '../lp/lp-bot-log.ts';
import type { LpJournal } from '../store/ledgers/lp-journal.ts';

/**
 * A demo step that failed. The timeout inside a step is `retryable` (a loaded machine), but the step's failure that
 * wraps it is not: `ferry demo` exits 1 (its documented failure code) whatever ended the step.
 */
export class DemoError extends FerryError {
  override readonly name = 'DemoError';
  constructor(message: string, options: { readonly cause?: unknown; readonly retryable?: boolean } = {}) {
    super(message, { cause: options.cause, retryable: options.retryable ?? false });
  }
}

export interface DemoOptions {
  /** Keeps devnet state and the SQLite database here; default a temp directory removed afterwards. */
  dataDir?: string;
  timeoutMs: number;
  /** Base units of USDC (6 decimals). */
  inputAmount: bigint;
  spreadBps: number;
  /** Ferry's own logs (info) and the LP bot's info lines; otherwise only the bot's warnings are shown. */
  verbose?: boolean;
  /**
   * A running Ferry on its own devnets (`npm start`) to swap through instead of starting devnets and an API; its
   * database (DATABASE_URL / DATA_DIR, as for `ferry accounts create`) gets the demo's accounts.
   */
  api?: string;
  /** Seconds between devnet blocks (DEVNET_BLOCK_TIME); default 0, each transaction mined at once. */
  blockTime?: number;
  print(line: string): void;
}

/**
 * One demo run: its options and data folder, the step it is on (named when it fails), and what it has started,
 * which runDemo stops at the end whatever happened. `aborted` is set at the end: a step still going stops at its
 * next checkpoint.
 */
export interface DemoRun {
  readonly options: DemoOptions;
  readonly dir: string;
  readonly started: number;
  step: string;
  aborted: boolean;
  devnets: Devnets | null;
  app: FerryAppInstance | null;
  bot: LpBot | null;
  journal: LpJournal | null;
}

export const POLL_MS = 150;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Prints a step that went well. */
export function ok(run: DemoRun, label: string, text: string): void {
  run.options.print(`  ✓ ${label.padEnd(14)} ${text}`);
}

export function checkAborted(run: DemoRun): void {
  if (run.aborted) throw new DemoError('aborted');
}

/** Polls `probe` until it returns a value; a thrown DemoError ends the wait at once. */
export async function waitFor<T>(run: DemoRun, probe: () => Promise<T | null>): Promise<T> {
  for (;;) {
    checkAborted(run);
    const value = await probe();
    if (value !== null) return value;
    await sleep(POLL_MS);
  }
}

/** The LP bot's lines in the demo's output: warnings and errors always, info with --verbose. */
export function demoBotLog(options: DemoOptions): BotLog {
  const { print } = options;
  return {
    debug() {},
    info: (obj, msg) => {
      if (options.verbose) print(`      lp bot: ${msg} ${JSON.stringify(obj)}`);
    },
    warn: (obj, msg) => print(`      lp bot: ${msg} ${JSON.stringify(obj)}`),
    error: (obj, msg) => print(`      lp bot: ${msg} ${JSON.stringify(obj)}`),
  };
}
