import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { MAX_PROOFS_PER_MESSAGE } from '../chains/settlement/prove-options.ts';
import { DEFAULT_FILL_MARGIN_SECONDS } from '../lp/fill-margin.ts';
import { MAX_SPREAD_BPS } from '../lp/pricing.ts';
import { DEFAULT_PROVE_AFTER_SECONDS, DEFAULT_PROVE_BATCH } from '../lp/prove-batch-defaults.ts';
import { isLogFormatSetting, LOG_FORMATS } from '../process/log-format.ts';

const intIn = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
  }
  return n;
};
const parseSpread = intIn('spread', 0, MAX_SPREAD_BPS);
const parsePoll = intIn('poll interval', 100, 3_600_000);
const parseMargin = intIn('fill margin', 0, 86_400);
const parseKey = (value: string) => {
  // The value never goes into the message: it is a secret.
  if (!/^0x[0-9a-fA-F]{64}$/.test(value))
    throw new InvalidArgumentError('must be a 0x-prefixed 32-byte hex key');
  return value as `0x${string}`;
};
const parseShare = (value: string) => {
  const n = Number(value);
  if (!/^(0?\.\d+|1(\.0+)?|0)$/.test(value.trim()) || !(n > 0 && n <= 1))
    throw new InvalidArgumentError('max offerer share must be a fraction above 0 and at most 1');
  return n;
};
/** "name=url" pairs, from repeated flags or a comma-separated LP_RPC_URLS. */
const parseRpc = (value: string, previous: Record<string, string> = {}) => {
  const out = { ...previous };
  for (const pair of value.split(',').filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at < 1) throw new InvalidArgumentError(`expected name=url, got "${pair}"`);
    out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
};

interface LpFlags {
  apiUrl: string;
  apiKey?: string;
  privateKey?: `0x${string}`;
  spreadBps?: number;
  pollMs: number;
  fillMarginSeconds: number;
  rpcUrl?: Record<string, string>;
  once?: boolean;
  stream: boolean;
  fillOpen: boolean;
  journal?: string;
  confirmations?: number;
  replaceAfterSeconds: number;
  chains?: string;
  maxOffererShare: number;
  proveBatch: number;
  proveAfterSeconds: number;
}

export function registerLpCommand(program: Command): void {
  withLpOptions(
    program
      .command('lp')
      .description('run the reference liquidity provider bot: quote open requests, fill accepted orders'),
  ).action(runLpBot);
}

/** The bot's flags. */
function withLpOptions(command: Command): Command {
  return (
    command
      // Each flag falls back to its environment variable (a flag given on the command line wins).
      .addOption(
        new Option('--api-url <url>', 'Ferry base URL')
          .env('FERRY_API_URL')
          .default(
            `http://127.0.0.1:${process.env.PORT || 8080}`,
            'http://127.0.0.1:$PORT, PORT defaulting to 8080',
          ),
      )
      .addOption(new Option('--api-key <key>', "the liquidity provider's API key").env('FERRY_API_KEY'))
      .addOption(
        new Option('--private-key <hex>', 'private key of the fill address')
          .env('LP_PRIVATE_KEY')
          .argParser(parseKey),
      )
      .addOption(
        new Option('--spread-bps <n>', `spread in basis points, 0-${MAX_SPREAD_BPS}`)
          .env('LP_SPREAD_BPS')
          .argParser(parseSpread),
      )
      .addOption(
        new Option('--poll-ms <n>', 'poll interval in ms')
          .env('LP_POLL_MS')
          .argParser(parsePoll)
          .default(2000),
      )
      .addOption(
        new Option(
          '--fill-margin-seconds <n>',
          "do not fill an order this close to its fillDeadline (on the output chain's clock)",
        )
          .env('LP_FILL_MARGIN_SECONDS')
          .argParser(parseMargin)
          .default(DEFAULT_FILL_MARGIN_SECONDS),
      )
      .addOption(
        new Option(
          '--rpc-url <name=url>',
          'RPC URL of a chain without a public one; repeatable, comma-separated in the env',
        )
          .env('LP_RPC_URLS')
          .argParser(parseRpc),
      )
      .addOption(
        new Option(
          '--journal <file>',
          'SQLite file of what the bot quoted and every transaction it signed (kept across restarts)',
        )
          .env('LP_JOURNAL')
          .default(undefined, '$DATA_DIR/lp-journal-<fill address>.sqlite, DATA_DIR defaulting to ./data'),
      )
      .addOption(
        new Option('--confirmations <n>', 'blocks after which its own transactions count as mined')
          .env('LP_CONFIRMATIONS')
          .argParser(intIn('confirmations', 1, 1000))
          .default(undefined, "each chain's confirmations in Ferry's registry"),
      )
      .addOption(
        new Option(
          '--replace-after-seconds <n>',
          'a transaction not mined after this long is replaced at the same nonce with higher fees',
        )
          .env('LP_REPLACE_AFTER_SECONDS')
          .argParser(intIn('replace-after-seconds', 1, 3600))
          .default(10),
      )
      .addOption(
        new Option(
          '--chains <file>',
          "chain registry file (Ferry's CHAIN_REGISTRY shape): the escrow, fill contract and tokens the API names must match it",
        ).env('LP_CHAINS'),
      )
      .addOption(
        new Option(
          '--max-offerer-share <fraction>',
          "share of the wallet's balance of a token that one offerer's open quotes and orders may hold",
        )
          .env('LP_MAX_OFFERER_SHARE')
          .argParser(parseShare)
          .default(0.5),
      )
      .addOption(
        new Option(
          '--prove-batch <n>',
          'LayerZero routes: fills proven per message (one prove per output chain and escrow); fewer messages cost less gas, ' +
            'a bigger batch repays the LP later under light traffic. 1: each fill proves itself (fillAndProve)',
        )
          .env('LP_PROVE_BATCH')
          // At most MAX_PROOFS_PER_MESSAGE (src/chains/settlement/prove-options.ts): the devnets' executor takes 10,000 bytes.
          .argParser(intIn('prove-batch', 1, MAX_PROOFS_PER_MESSAGE))
          .default(DEFAULT_PROVE_BATCH),
      )
      .addOption(
        new Option(
          '--prove-after-seconds <n>',
          "LayerZero routes: send a route's batch this long after its oldest unproven fill even if not full: the most " +
            "the LP's repayment waits for batching; keep it below Ferry's proveAfterSeconds (60 s by default)",
        )
          .env('LP_PROVE_AFTER_SECONDS')
          .argParser(intIn('prove-after-seconds', 0, 3600))
          .default(DEFAULT_PROVE_AFTER_SECONDS),
      )
      .option('--once', 'run one pass and exit (non-zero if anything failed)')
      .option('--no-stream', 'poll only: do not listen for new quote requests on the WebSocket')
      .option(
        '--no-fill-open',
        "do not fill orders other providers were quoted for once their exclusivity lapses (default: fill those this bot's spread prices at or above their output)",
      )
  );
}

/** Runs the bot with `flags` until a signal (or one pass with --once). */
async function runLpBot(flags: LpFlags): Promise<void> {
  const { apiKey, privateKey, spreadBps, pollMs } = flags;
  const missing = [
    !apiKey && '--api-key (or FERRY_API_KEY)',
    !privateKey && '--private-key (or LP_PRIVATE_KEY)',
    spreadBps === undefined && '--spread-bps (or LP_SPREAD_BPS)',
  ].filter(Boolean);
  if (missing.length > 0 || !privateKey || spreadBps === undefined) {
    console.error(`ferry lp: missing ${missing.join(', ')}`);
    process.exit(2);
  }

  const logFormat = process.env.LOG_FORMAT || 'auto';
  if (!isLogFormatSetting(logFormat)) {
    console.error(`ferry lp: LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}`);
    process.exit(2);
  }
  const [
    { createFerryApi },
    { createLpBot },
    { createProcessLogger },
    { openLpJournal },
    { privateKeyToAccount },
  ] = await Promise.all([
    import('../lp/ferry-api.ts'),
    import('../lp/lp-bot.ts'),
    import('../process/logger.ts'),
    import('../store/ledgers/lp-journal.ts'),
    import('viem/accounts'),
  ]);
  const { createFaultInjector } = await import('../process/fault-injector.ts');
  let pinnedChains = null;
  if (flags.chains) {
    const { loadChainRegistryFile } = await import('../chains/chain-registry.ts');
    try {
      pinnedChains = loadChainRegistryFile(flags.chains);
    } catch (error) {
      console.error(`ferry lp: --chains: ${(error as Error).message.split('\n')[0]}`);
      process.exit(2);
    }
  }
  const log = createProcessLogger(
    { level: process.env.LOG_LEVEL || 'info', base: { component: 'lp' } },
    logFormat,
  );
  const journalFile =
    flags.journal ??
    path.join(process.env.DATA_DIR || 'data', `lp-journal-${privateKeyToAccount(privateKey).address}.sqlite`);
  const journal = openLpJournal(journalFile);
  const bot = createLpBot({
    journal,
    ...(flags.confirmations === undefined ? {} : { confirmations: flags.confirmations }),
    replaceAfterSeconds: flags.replaceAfterSeconds,
    faults: createFaultInjector((process.env.LP_FAULT_INJECT ?? '').split(',').filter(Boolean)),
    api: createFerryApi({ baseUrl: flags.apiUrl, apiKey }),
    privateKey,
    spreadBps,
    log,
    rpcUrls: flags.rpcUrl,
    stream: flags.stream,
    fillOpen: flags.fillOpen,
    fillMarginSeconds: flags.fillMarginSeconds,
    pinnedChains,
    maxOffererShare: flags.maxOffererShare,
    proveBatch: flags.proveBatch,
    proveAfterSeconds: flags.proveAfterSeconds,
  });
  const problem = await bot.checkSetup();
  if (problem) {
    console.error(`ferry lp: ${problem}`);
    process.exit(1);
  }
  log.info(
    {
      api: flags.apiUrl,
      fillAddress: bot.address,
      spreadBps,
      pollMs,
      stream: flags.stream,
      fillOpen: flags.fillOpen,
      proveBatch: flags.proveBatch,
      proveAfterSeconds: flags.proveAfterSeconds,
      journal: journalFile,
    },
    'liquidity provider bot started',
  );

  if (flags.once) {
    const report = await bot.runOnce();
    log.info(
      { quoted: report.quoted.length, filled: report.filled.length, errors: report.errors.length },
      'pass done',
    );
    await journal.close();
    process.exit(report.errors.length > 0 ? 1 : 0);
  }
  bot.start(pollMs);
  const stop = async (signal: string) => {
    log.info({ signal }, 'stopping (the pass in progress gets a few seconds; the journal holds the rest)');
    await bot.stop();
    await journal.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
