import fs from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import type { RegistryFile } from '../chains/chain-registry.ts';
import { ConfigError, loadConfig } from '../config/config.ts';
import { FerryError } from '../domain/ferry-error.ts';
import { CliError } from './cli-error.ts';

type Address = `0x${string}`;
type ChainEntry = RegistryFile['chains'][number];

const address = (value: string): Address => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value))
    throw new InvalidArgumentError('must be a 0x-prefixed 20-byte address');
  return value as Address;
};
const addresses = (value: string): Address[] => value.split(',').map((item) => address(item.trim()));
const integer = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
  return n;
};
const chainName = (value: string) => {
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(value))
    throw new InvalidArgumentError('must be lowercase letters, digits and dashes (at most 64)');
  return value;
};
const tokenList = (value: string) =>
  value.split(',').map((item) => {
    const [symbol = '', token = '', decimals = ''] = item.trim().split(':');
    if (!/^[A-Za-z0-9.]{1,16}$/.test(symbol) || !/^\d{1,2}$/.test(decimals))
      throw new InvalidArgumentError(`expected SYMBOL:ADDRESS:DECIMALS, got "${item}"`);
    return { symbol, address: address(token), decimals: Number(decimals) };
  });

interface DeployOptions {
  rpcUrl: string;
  name: string;
  out: string;
  chainId?: number;
  layerzeroEndpoint?: Address;
  eid?: number;
  sendLibrary?: Address;
  receiveLibrary?: Address;
  executor?: Address;
  dvns?: Address[];
  optionalDvns?: Address[];
  optionalDvnThreshold?: number;
  confirmations: number;
  attester?: Address;
  settleGrace: number;
  tokens?: ChainEntry['tokens'];
}

/** The deployer key comes from the environment only: a flag would land in shell history and process lists. */
function deployerKey(): Address {
  const key = loadConfig().deployerKey;
  if (!key)
    throw new CliError('DEPLOYER_PRIVATE_KEY is not set: ferry deploy reads the deployer key from it');
  return key;
}

/** A failure said in one line, without the RPC URL (it may carry an API key) or any key. */
function oneLine(error: unknown, context?: string): never {
  if (error instanceof ConfigError || error instanceof CliError) throw error;
  if (error instanceof FerryError) throw new CliError(error.message);
  const short = (error as { shortMessage?: string }).shortMessage;
  if (context && short) throw new CliError(`${context}: ${short}`);
  throw new CliError(
    short ?? (error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)),
  );
}

const LZ_FLAGS = ['eid', 'sendLibrary', 'receiveLibrary', 'executor', 'dvns'] as const;
const flagOf = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

function settlementOf(opts: DeployOptions) {
  if (opts.attester && opts.layerzeroEndpoint)
    throw new CliError('--attester and --layerzero-endpoint exclude each other: pick one settlement method');
  if (opts.attester) return { method: 'attester', attester: opts.attester } as const;
  if (!opts.layerzeroEndpoint) throw new CliError('give --layerzero-endpoint (LayerZero) or --attester');
  for (const key of LZ_FLAGS)
    if (opts[key] === undefined) throw new CliError(`${flagOf(key)} is required with --layerzero-endpoint`);
  return { method: 'layerzero', endpoint: opts.layerzeroEndpoint, eid: opts.eid as number } as const;
}

async function deployChain(opts: DeployOptions): Promise<void> {
  // Not commander's requiredOption: `deploy wire` and `deploy check` would then demand them too.
  for (const flag of ['rpcUrl', 'name', 'out'] as const)
    if (!opts[flag]) throw new CliError(`${flagOf(flag)} is required`);
  const settlement = settlementOf(opts);
  const key = deployerKey();
  const { deployFerryChain } = await import('../chains/ferry-deploy.ts');
  const deployment = await deployFerryChain({
    rpcUrl: opts.rpcUrl,
    deployerKey: key,
    settlement,
    settleGrace: opts.settleGrace,
    ...(opts.chainId === undefined ? {} : { chainId: opts.chainId }),
  }).catch((error: unknown) => oneLine(error, '--rpc-url'));
  const entry: ChainEntry = {
    name: opts.name,
    chainId: deployment.chainId,
    rpcUrl: opts.rpcUrl,
    confirmations: opts.confirmations,
    startBlock: Number(deployment.startBlock),
    messenger: settlement.method,
    contracts: deployment.contracts,
    ...(settlement.method === 'layerzero'
      ? {
          layerzero: {
            eid: opts.eid as number,
            endpoint: settlement.endpoint,
            sendLibrary: opts.sendLibrary as Address,
            receiveLibrary: opts.receiveLibrary as Address,
            executor: opts.executor as Address,
            requiredDvns: opts.dvns as Address[],
            ...(opts.optionalDvns ? { optionalDvns: opts.optionalDvns } : {}),
            ...(opts.optionalDvnThreshold === undefined
              ? {}
              : { optionalDvnThreshold: opts.optionalDvnThreshold }),
            confirmations: opts.confirmations,
          },
        }
      : {}),
    tokens: opts.tokens ?? [],
  };
  await writeEntry(opts.out, entry);
  const { contracts } = deployment;
  console.log(
    `deployed Ferry on ${opts.name} (chain ${deployment.chainId}, ${settlement.method}): escrow ${contracts.escrow}, ` +
      `${settlement.method === 'layerzero' ? 'app' : 'fill'} ${contracts.fill}` +
      `${contracts.messenger ? `, messenger ${contracts.messenger}` : ''}`,
  );
  console.log(`registry entry "${opts.name}" written to ${opts.out}`);
}

/** Adds (or replaces, by name) the chain's entry in the registry file, which must stay a valid registry. */
async function writeEntry(file: string, entry: ChainEntry): Promise<void> {
  const { createChainRegistry } = await import('../chains/chain-registry.ts');
  let chains: ChainEntry[] = [];
  if (fs.existsSync(file)) {
    try {
      chains = (JSON.parse(fs.readFileSync(file, 'utf8')) as RegistryFile).chains ?? [];
    } catch (error) {
      throw new CliError(`--out ${file} is not a registry file: ${(error as Error).message}`);
    }
  }
  const clash = chains.find((c) => c.chainId === entry.chainId && c.name !== entry.name);
  if (clash) throw new CliError(`--out ${file} already has chain ${entry.chainId} as "${clash.name}"`);
  const merged: RegistryFile = { chains: [...chains.filter((c) => c.name !== entry.name), entry] };
  try {
    createChainRegistry(merged);
  } catch (error) {
    throw new CliError((error as Error).message.replace(/\n\s*/g, ' '));
  }
  fs.writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
}

async function loadRegistry(file: string) {
  const { loadChainRegistryFile } = await import('../chains/chain-registry.ts');
  try {
    return loadChainRegistryFile(file);
  } catch (error) {
    throw new CliError(`--registry: ${(error as Error).message.replace(/\n\s*/g, ' ')}`);
  }
}

async function wireChains(opts: { registry: string; chains: string }): Promise<void> {
  const key = deployerKey();
  const registry = await loadRegistry(opts.registry);
  const names = opts.chains.split(',').map((n) => n.trim());
  const selected = names.map((name) => {
    const chain = registry.chain(name);
    if (!chain) throw new CliError(`--chains: no chain "${name}" in ${opts.registry}`);
    if (chain.settlement.method !== 'layerzero')
      throw new CliError(`--chains: ${name} settles through the attester; only LayerZero chains are wired`);
    return chain;
  });
  if (selected.length < 2) throw new CliError('--chains needs at least two chains, comma-separated');
  const [{ wireFerryChains }, { checkFerryAppLocked }, { createChainRegistry }] = await Promise.all([
    import('../chains/ferry-wire.ts'),
    import('../chains/ferry-app-lock.ts'),
    import('../chains/chain-registry.ts'),
  ]);
  await wireFerryChains(selected, { deployerKey: key }).catch(oneLine);
  const file = JSON.parse(fs.readFileSync(opts.registry, 'utf8')) as RegistryFile;
  const wired = createChainRegistry({ chains: file.chains.filter((c) => names.includes(c.name)) });
  const problems = (await Promise.all(wired.chains.map((c) => checkFerryAppLocked(c, wired)))).flat();
  if (problems.length > 0) throw new CliError(`wired, but the check failed: ${problems.join('; ')}`);
  console.log(`wired and locked: ${names.join(', ')} (no owner, no delegate; peers and verifiers pinned)`);
}

async function checkChains(opts: { registry: string }): Promise<void> {
  const registry = await loadRegistry(opts.registry);
  const { checkFerryAppLocked } = await import('../chains/ferry-app-lock.ts');
  let failed = 0;
  for (const chain of registry.chains.filter((c) => c.settlement.method === 'layerzero')) {
    const problems = await checkFerryAppLocked(chain, registry).catch(oneLine);
    failed += problems.length;
    console.log(problems.length === 0 ? `${chain.name}: locked` : problems.map((p) => `  ${p}`).join('\n'));
  }
  if (failed > 0)
    throw new CliError(`${failed} problem(s): the apps are not wired and locked as the registry says`);
}

export function registerDeployCommand(program: Command): void {
  const deploy = program
    .command('deploy')
    .description(
      "deploy Ferry's contracts on one chain and write its registry entry (key: DEPLOYER_PRIVATE_KEY)",
    )
    .option('--rpc-url <url>', "the chain's JSON-RPC URL (stored in the registry entry, never printed)")
    .option('--name <name>', "the chain's name in the registry", chainName)
    .option('--out <file>', 'registry file to write the entry into (created, or merged by name)')
    .option(
      '--chain-id <id>',
      'refuse to deploy unless the RPC answers this chain id',
      integer(1, 2 ** 53 - 1),
    )
    .option('--layerzero-endpoint <address>', "LayerZero's EndpointV2 on the chain", address)
    .option('--eid <eid>', "the chain's LayerZero endpoint id", integer(1, 4_294_967_295))
    .option('--send-library <address>', 'SendUln302 the app pins', address)
    .option('--receive-library <address>', 'ReceiveUln302 the app pins', address)
    .option('--executor <address>', 'the executor the app pins', address)
    .option('--dvns <addresses>', 'required DVNs, comma-separated (all must verify)', addresses)
    .option('--optional-dvns <addresses>', 'optional DVNs, comma-separated', addresses)
    .option('--optional-dvn-threshold <n>', 'how many optional DVNs must verify', integer(1, 255))
    .option('--confirmations <n>', 'blocks DVNs wait on this chain before verifying', integer(1, 100_000), 15)
    .option('--attester <address>', 'settle through AttesterMessenger trusting this address instead', address)
    .option(
      '--settle-grace <seconds>',
      'refunds open this long after fillDeadline',
      integer(60, 30 * 86_400),
      3600,
    )
    .option(
      '--tokens <list>',
      'SYMBOL:ADDRESS:DECIMALS, comma-separated (the registry entry can be edited later)',
      tokenList,
    )
    .action((opts: DeployOptions) => deployChain(opts));
  deploy
    .command('wire')
    .description('wire the LayerZero apps of the named chains to each other, then lock them (no owner left)')
    .requiredOption('--registry <file>', 'the registry file ferry deploy wrote')
    .requiredOption('--chains <names>', 'the chains to wire, comma-separated (every pair is wired both ways)')
    .action((opts: { registry: string; chains: string }) => wireChains(opts));
  deploy
    .command('check')
    .description("check that every LayerZero chain's app is wired and locked as the registry says")
    .requiredOption('--registry <file>', 'the registry file')
    .action((opts: { registry: string }) => checkChains(opts));
}
