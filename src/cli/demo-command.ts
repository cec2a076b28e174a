import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config/config.ts';
import { MAX_SPREAD_BPS } from '../lp/pricing.ts';
import { exitCodeFor } from '../process/exit-code.ts';

const intIn = (min: number, max: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
  }
  return Number(value);
};

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'run one whole swap on fresh local devnets (or through a running Ferry with --api), with progress, tx hashes and balances',
    )
    .option(
      '--data-dir <dir>',
      'keep the devnet state and database here (default: a temp dir, removed after)',
    )
    .option(
      '--amount <baseUnits>',
      'USDC to swap, in base units (6 decimals; at least the token minAmount, 1000000 on the devnets)',
      '25000000',
    )
    .option('--spread-bps <n>', "the LP bot's spread", intIn(0, MAX_SPREAD_BPS), 30)
    .option('--timeout <seconds>', 'give up after this long', intIn(1, 3600), 60)
    .option(
      '--api <url>',
      'swap through an already running Ferry on its own devnets (npm start) instead, e.g. http://127.0.0.1:8080; run it where Ferry was started (it adds the demo accounts to that database)',
    )
    .option('--verbose', "also print Ferry's logs and the LP bot's actions")
    .action(
      async (opts: {
        dataDir?: string;
        amount: string;
        spreadBps: number;
        timeout: number;
        api?: string;
        verbose?: boolean;
      }) => {
        if (opts.api !== undefined && !/^https?:\/\/[^\s/]+/.test(opts.api)) {
          console.error('ferry demo: --api must be an http(s) URL, e.g. http://127.0.0.1:8080');
          process.exit(2);
        }
        if (!/^[1-9]\d{0,20}$/.test(opts.amount)) {
          console.error('ferry demo: --amount must be a positive integer (base units)');
          process.exit(2);
        }
        try {
          // The demo's own settings are fixed; only the devnets' block time comes from the environment.
          const { devnetBlockTime } = loadConfig();
          const { runDemo } = await import('../demo/run-demo.ts');
          await runDemo({
            blockTime: devnetBlockTime,
            dataDir: opts.dataDir,
            inputAmount: BigInt(opts.amount),
            spreadBps: opts.spreadBps,
            timeoutMs: opts.timeout * 1000,
            verbose: opts.verbose,
            ...(opts.api ? { api: opts.api.replace(/\/+$/, '') } : {}),
            print: (line) => console.log(line),
          });
          process.exit(0);
        } catch (error) {
          console.error(`ferry demo: ${(error as Error).message}`);
          process.exit(exitCodeFor(error));
        }
      },
    );
}
