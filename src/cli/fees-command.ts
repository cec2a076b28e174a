import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config/config.ts';
import { CliError } from './cli-error.ts';

type Hex = `0x${string}`;

const address = (value: string): Hex => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value))
    throw new InvalidArgumentError('must be a 0x-prefixed 20-byte address');
  return value as Hex;
};
const privateKey = (value: string): Hex => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(value))
    throw new InvalidArgumentError('must be a 0x-prefixed 32-byte hex key');
  return value as Hex;
};

interface FeesOptions {
  registry?: string;
  account?: Hex;
  withdraw?: boolean;
  privateKey?: Hex;
  json?: boolean;
}

/** A failure in one line, without the RPC URL (it may carry an API key) or the key. */
const oneLine = (error: unknown) =>
  (error as { shortMessage?: string }).shortMessage ??
  (error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));

/**
 * `ferry fees`: what each escrow of the registry owes the fee recipient (or `--account`) per token, and with
 * `--withdraw` pays it out. withdraw is permissionless (the tokens only go to the account), so any key with gas
 * on the chain may send it.
 */
export function registerFeesCommand(program: Command): void {
  program
    .command('fees')
    .description(
      'show what the escrows owe the fee recipient (or --account) per token; --withdraw pays it out',
    )
    .option('--registry <file>', 'chain registry file (instead of CHAIN_REGISTRY)')
    .option('--account <address>', "whose credits (default: each escrow's fee recipient)", address)
    .option('--withdraw', 'send withdraw(token, account) for every non-zero credit')
    .addOption(
      new Option('--private-key <hex>', 'key that pays the gas of --withdraw (any funded key)')
        .env('WITHDRAW_PRIVATE_KEY')
        .argParser(privateKey),
    )
    .option('--json', 'print JSON')
    .action(async (opts: FeesOptions) => {
      const registryPath = opts.registry
        ? path.resolve(opts.registry)
        : loadConfig(process.env).chainRegistryPath;
      if (!registryPath) throw new CliError('no chain registry: pass --registry FILE or set CHAIN_REGISTRY');
      if (opts.withdraw && !opts.privateKey)
        throw new CliError('--withdraw needs --private-key (or WITHDRAW_PRIVATE_KEY) to pay its gas');
      const [{ loadChainRegistryFile }, { readEscrowCredits, withdrawEscrowCredit }, { formatUnits }] =
        await Promise.all([
          import('../chains/chain-registry.ts'),
          import('../chains/settlement/escrow-credits.ts'),
          import('viem'),
        ]);
      const registry = loadChainRegistryFile(registryPath);
      let credits: Awaited<ReturnType<typeof readEscrowCredits>>;
      try {
        credits = await readEscrowCredits(registry, opts.account);
      } catch (error) {
        throw new CliError(`reading the escrows' credits failed: ${oneLine(error)}`);
      }
      const amount = (c: (typeof credits)[number]) => `${formatUnits(c.owed, c.decimals)} ${c.symbol}`;
      const withdrawals: {
        chain: string;
        token: Hex;
        account: Hex;
        amount: string;
        tx?: Hex;
        error?: string;
      }[] = [];
      if (opts.withdraw && opts.privateKey) {
        for (const credit of credits.filter((c) => c.owed > 0n)) {
          const row = {
            chain: credit.chain,
            token: credit.token,
            account: credit.account,
            amount: `${credit.owed}`,
          };
          try {
            withdrawals.push({ ...row, tx: await withdrawEscrowCredit(registry, credit, opts.privateKey) });
          } catch (error) {
            withdrawals.push({ ...row, error: oneLine(error) });
          }
        }
      }
      if (opts.json) {
        console.log(
          JSON.stringify(
            { credits: credits.map((c) => ({ ...c, owed: `${c.owed}` })), withdrawals },
            null,
            2,
          ),
        );
      } else {
        for (const c of credits)
          console.log(`${c.chain}  ${c.symbol}  owed ${amount(c)} to ${c.account}  (escrow ${c.escrow})`);
        for (const w of withdrawals) {
          const credit = credits.find((c) => c.chain === w.chain && c.token === w.token);
          const what = credit ? amount(credit) : w.amount;
          console.log(
            w.tx
              ? `withdrew ${what} on ${w.chain} to ${w.account} (tx ${w.tx})`
              : `could not withdraw ${what} on ${w.chain} to ${w.account}: ${w.error}`,
          );
        }
      }
      if (withdrawals.some((w) => w.error)) process.exitCode = 1;
    });
}
