import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import {
  type Config,
  ConfigError,
  describeSettings,
  loadConfig,
  PROJECT_ROOT,
  redactUrl,
} from '../config/config.ts';
import { requireMetricsAccess } from '../config/metrics-access.ts';
import { AppError } from '../domain/app-error.ts';
import { ACCOUNT_TYPES, type AccountType } from '../domain/principal.ts';
import { exitCodeFor } from '../process/exit-code.ts';
import { stopWithNpmParent } from '../process/npm-parent.ts';
import type { AccountService } from '../services/account-service.ts';
import { CliError } from './cli-error.ts';
import { registerDemoCommand } from './demo-command.ts';
import { registerDeployCommand } from './deploy-command.ts';
import { registerFeesCommand } from './fees-command.ts';
import { registerLpCommand } from './lp-command.ts';

// Only commander and the config load up front, so `--help` and `--version` answer at once; each command
// imports what it runs (the server, viem, the database drivers) when it runs.

/** The environment's settings; `--registry FILE` (taken from the current folder) stands for CHAIN_REGISTRY. */
function config(registry?: string): Config {
  return loadConfig(registry ? { ...process.env, CHAIN_REGISTRY: path.resolve(registry) } : process.env);
}

/** Every command that opens the database says which one (on stderr, so --json output stays clean). */
const announceDatabase = (cfg: Config) => console.error(`database: ${redactUrl(cfg.databaseUrl)}`);

/** Opens the database of DATABASE_URL, migrated, for one operator command. */
async function withDatabase<T>(fn: (accounts: AccountService) => Promise<T>): Promise<T> {
  const cfg = config();
  announceDatabase(cfg);
  const [{ createDatabase }, { migrateToLatest }, { createAccountService }, { systemClock }] =
    await Promise.all([
      import('../store/engine/database.ts'),
      import('../store/engine/migrator.ts'),
      import('../services/account-service.ts'),
      import('../domain/clock.ts'),
    ]);
  const database = createDatabase(cfg);
  try {
    await migrateToLatest(database);
    return await fn(createAccountService({ database, clock: systemClock }));
  } finally {
    await database.destroy();
  }
}

const print = (json: boolean, value: unknown, text: string) =>
  console.log(json ? JSON.stringify(value, null, 2) : text);

const { version } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};
const program = new Command('ferry')
  .description('Ferry: cross-chain stablecoin swaps')
  .version(version, '-V, --version')
  .showHelpAfterError();

program
  .command('start')
  .description('start the API (and, without CHAIN_REGISTRY, the two local devnets)')
  .option(
    '--registry <file>',
    'chain registry file (instead of CHAIN_REGISTRY); the worker then runs only with WORKER=true',
  )
  .addHelpText(
    'after',
    `\nSettings (environment variables; shown with their defaults, see docs/configuration.md):\n${describeSettings()}\n`,
  )
  .action(async (opts: { registry?: string }) => {
    const cfg = config(opts.registry);
    // Before the devnets start: refusing later would leave them to be stopped.
    requireMetricsAccess(cfg, 'api');
    const { findPortClash, portsToCheck } = await import('./port-check.ts');
    const clash = await findPortClash(portsToCheck(cfg, !cfg.chainRegistryPath));
    if (clash) throw new CliError(clash);
    const [
      { createApp, createLogger },
      { resolveRegistry },
      { startBanner },
      { closeOnSignals, createShutdownRegistry },
    ] = await Promise.all([
      import('../app.ts'),
      import('./registry-source.ts'),
      import('./start-banner.ts'),
      import('../process/shutdown-registry.ts'),
    ]);
    const log = createLogger(cfg);
    const shutdown = createShutdownRegistry(log);
    closeOnSignals(shutdown, log);
    const chains = await resolveRegistry(cfg, log);
    shutdown.register('devnets', () => chains.stop());
    const app = await createApp({
      config: cfg,
      registry: chains.registry,
      log,
      workerKeys: chains.workerKeys,
      shutdown,
    });
    const base = await app.listen();
    console.log(
      startBanner({ base, config: cfg, registry: chains.registry, demoWallets: chains.demoWallets }),
    );
  });

program
  .command('devnet')
  .description(
    'run the two local anvil devnets with Ferry contracts deployed (and the LayerZero relay), and print the registry',
  )
  .action(async () => {
    const cfg = config();
    const { findPortClash, portsToCheck } = await import('./port-check.ts');
    const clash = await findPortClash(portsToCheck(cfg, true).filter((p) => p.setting !== 'PORT'));
    if (clash) throw new CliError(clash);
    const [{ createLogger }, { resolveRegistry }] = await Promise.all([
      import('../app.ts'),
      import('./registry-source.ts'),
    ]);
    const chains = await resolveRegistry({ ...cfg, chainRegistryPath: null }, createLogger(cfg));
    // The registry file itself (usable as CHAIN_REGISTRY): the parsed registry holds bigints JSON cannot print.
    console.log(JSON.stringify(chains.file, null, 2));
    const stop = async () => {
      await chains.stop();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
  });

program
  .command('worker')
  .description('run only the settlement worker (several may run against one PostgreSQL database)')
  .option('--registry <file>', 'chain registry file (instead of CHAIN_REGISTRY)')
  .action(async (opts: { registry?: string }) => {
    const cfg = config(opts.registry);
    if (!cfg.chainRegistryPath)
      throw new ConfigError(['ferry worker needs CHAIN_REGISTRY (e.g. ./data/chains.json)']);
    if (cfg.metricsPort !== null) {
      requireMetricsAccess(cfg, 'worker');
      const { findPortClash } = await import('./port-check.ts');
      const clash = await findPortClash([{ port: cfg.metricsPort, host: cfg.host, setting: 'METRICS_PORT' }]);
      if (clash) throw new CliError(clash);
    }
    announceDatabase(cfg);
    const [
      { createLogger, createWorkerProcess },
      { loadChainRegistryFile },
      { closeOnSignals, createShutdownRegistry },
    ] = await Promise.all([
      import('../app.ts'),
      import('../chains/chain-registry.ts'),
      import('../process/shutdown-registry.ts'),
    ]);
    const log = createLogger(cfg);
    const registry = loadChainRegistryFile(cfg.chainRegistryPath);
    const shutdown = createShutdownRegistry(log);
    closeOnSignals(shutdown, log);
    const worker = await createWorkerProcess({ config: cfg, registry, log, shutdown });
    worker.start();
    log.info({ owner: worker.owner }, 'settlement worker started');
  });

program
  .command('migrate')
  .description('apply pending database migrations')
  .action(async () => {
    const cfg = config();
    announceDatabase(cfg);
    const [{ createDatabase }, { migrateToLatest }] = await Promise.all([
      import('../store/engine/database.ts'),
      import('../store/engine/migrator.ts'),
    ]);
    const database = createDatabase(cfg);
    try {
      const applied = await migrateToLatest(database);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    } finally {
      await database.destroy();
    }
  });

const parseType = (value: string): AccountType => {
  if (!(ACCOUNT_TYPES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${ACCOUNT_TYPES.join(', ')}`);
  }
  return value as AccountType;
};
// Checksummed in the command (viem loads with the command that needs it, not with every CLI start).
const parseAddress = (value: string) => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value))
    throw new InvalidArgumentError('must be a 0x-prefixed 20-byte address');
  return value as `0x${string}`;
};

interface AccountCreateOptions {
  type: AccountType;
  name: string;
  address?: `0x${string}`;
  allowWalletSignIn?: boolean;
  reuse?: boolean;
  json?: boolean;
}

const accounts = program.command('accounts').description('manage accounts');
accounts
  .command('create')
  .description('create an account and its first API key (shown once)')
  .requiredOption('--type <type>', 'moneyMover or liquidityProvider', parseType)
  .requiredOption('--name <name>', 'display name')
  .option('--address <address>', 'fill address (required for liquidity providers)', parseAddress)
  .option(
    '--allow-wallet-sign-in',
    'money movers with --address: Sign-In with Ethereum by that wallet acts as this account (off: it gets its own)',
  )
  .option(
    '--reuse',
    'when an account of this type and name exists (same address), issue a new API key for it instead of creating another account',
  )
  .option('--json', 'print JSON')
  .action(async (opts: AccountCreateOptions) => {
    const { getAddress } = await import('viem');
    await withDatabase(async (service) => {
      const input = {
        type: opts.type,
        name: opts.name,
        address: opts.address ? getAddress(opts.address) : null,
        allowWalletSignIn: opts.allowWalletSignIn ?? false,
      };
      const { account, reused } = opts.reuse
        ? await service.findOrCreateAccount(input)
        : { account: await service.createAccount(input), reused: false };
      const { apiKey } = await service.createApiKey(account.id);
      print(
        Boolean(opts.json),
        { account, apiKey, reused },
        `${reused ? 'reused' : 'created'} ${account.type} ${account.id}\nAPI key (shown once, store it now): ${apiKey}`,
      );
    });
  });
accounts
  .command('list')
  .description("list the accounts in the database, oldest first (the CLI's, the demo's and wallet sign-ins')")
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) => {
    await withDatabase(async (service) => {
      const list = await service.listAccounts();
      const lines = list.map(
        (a) =>
          `${a.id}  ${a.type}  ${JSON.stringify(a.name)}  ${a.address ?? '-'}  created ${a.createdAt.toISOString()}${a.walletSignIn ? '  wallet sign-in' : ''}`,
      );
      print(Boolean(opts.json), { accounts: list }, lines.join('\n') || 'no accounts');
    });
  });

const keys = program.command('keys').description('manage API keys');
keys
  .command('create')
  .description('issue a new API key for an account (shown once)')
  .requiredOption('--account <id>', 'account id')
  .option('--json', 'print JSON')
  .action(async (opts: { account: string; json?: boolean }) => {
    await withDatabase(async (service) => {
      const { apiKey, key } = await service.createApiKey(opts.account);
      print(
        Boolean(opts.json),
        { apiKey, key },
        `key ${key.id}\nAPI key (shown once, store it now): ${apiKey}`,
      );
    });
  });
keys
  .command('list')
  .description("list an account's API keys (never the keys themselves)")
  .requiredOption('--account <id>', 'account id')
  .option('--json', 'print JSON')
  .action(async (opts: { account: string; json?: boolean }) => {
    await withDatabase(async (service) => {
      const list = await service.listApiKeys(opts.account);
      const lines = list.map(
        (k) =>
          `${k.id}  ${k.keyPrefix}…  created ${k.createdAt.toISOString()}  ${k.revokedAt ? 'REVOKED' : 'live'}`,
      );
      print(Boolean(opts.json), { keys: list }, lines.join('\n') || 'no keys');
    });
  });
keys
  .command('revoke')
  .description('revoke an API key at once')
  .argument('<keyId>', 'key id (key_…)')
  .action(async (keyId: string) => {
    await withDatabase(async (service) => {
      await service.revokeApiKey(keyId);
      console.log(`revoked ${keyId}`);
    });
  });

registerLpCommand(program);
registerDemoCommand(program);
registerDeployCommand(program);
registerFeesCommand(program);

// `npx ferry lp … &` stopped by its pid: npm does not pass SIGTERM on (src/process/npm-parent.ts).
stopWithNpmParent();
// A command that fails exits 75 (EX_TEMPFAIL) when its error is retryable, 1 otherwise (docs/errors.md, Exit codes).
program.parseAsync().catch((error: unknown) => {
  // Refusals an operator acts on from their message alone; anything else prints whole, causes and stack. The
  // journal's refusal goes by name: importing the store here would load Kysely for every command's start.
  const oneLine =
    [ConfigError, AppError, CliError].some((type) => error instanceof type) ||
    (error instanceof Error && error.name === 'LpJournalTooNewError');
  if (oneLine) console.error(`ferry: ${(error as Error).message}`);
  else console.error('ferry:', error);
  process.exit(exitCodeFor(error));
});
