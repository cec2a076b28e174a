import fs from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import type { RegistryFile } from '../chains/chain-registry.ts';
import { ConfigError, loadConfig } from '../config/config.ts';
import { FerryError } from '../domain/ferry-error.ts';
import { MAX_PROTOCOL_FEE_BPS } from '../domain/protocol-fee.ts';
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
const positiveSeconds = (value: string) => {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0) || n > 3600)
    throw new InvalidArgumentError('must be a number of seconds above 0, at most 3600');
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
  blockTime?: number;
  dvnVerifySeconds?: number;
  attester?: Address;
  settleGrace: number;
  protocolFeeBps: number;
  feeRecipient?: Address;
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
  if (error instanceof FerryError) throw new CliError(error.message, { cause: error });
  const short = (error as { shortMessage?: string }).shortMessage;
  if (context && short) throw new CliError(`${context}: ${short}`, { cause: error });
  throw new CliError(
    short ?? (error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)),
    { cause: error },
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
  const entryOf = (deployment: {
    chainId: number;
    startBlock: bigint;
    contracts: ChainEntry['contracts'];
  }): ChainEntry => ({
    name: opts.name,
    chainId: deployment.chainId,
    rpcUrl: opts.rpcUrl,
    confirmations: opts.confirmations,
    ...(opts.blockTime === undefined ? {} : { blockTimeSeconds: opts.blockTime }),
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
            ...(opts.dvnVerifySeconds === undefined ? {} : { dvnVerifySeconds: opts.dvnVerifySeconds }),
          },
        }
      : {}),
    tokens: opts.tokens ?? [],
  });
  // The grace is immutable once the escrow is deployed: judged on the entry-to-be before anything is sent.
  const zero = '0x0000000000000000000000000000000000000000' as Address;
  await checkSettleGrace(
    opts.out,
    entryOf({ chainId: opts.chainId ?? 1, startBlock: 0n, contracts: { escrow: zero, fill: zero } }),
    opts.settleGrace,
  );
  // The fee is immutable too, and Ferry refuses to start with a PROTOCOL_FEE_BPS other than the escrows'.
  if (opts.protocolFeeBps !== 0 && !opts.feeRecipient)
    throw new CliError(
      `--protocol-fee-bps ${opts.protocolFeeBps} needs --fee-recipient: the fee must go somewhere`,
    );
  const key = deployerKey();
  const { deployFerryChain } = await import('../deploy/ferry-deploy.ts');
  const deployment = await deployFerryChain({
    rpcUrl: opts.rpcUrl,
    deployerKey: key,
    settlement,
    settleGrace: opts.settleGrace,
    protocolFeeBps: opts.protocolFeeBps,
    ...(opts.feeRecipient ? { feeRecipient: opts.feeRecipient } : {}),
    ...(opts.chainId === undefined ? {} : { chainId: opts.chainId }),
  }).catch((error: unknown) => oneLine(error, '--rpc-url'));
  const entry = entryOf(deployment);
  await writeEntry(opts.out, entry);
  const { contracts } = deployment;
  console.log(
    `deployed Ferry on ${opts.name} (chain ${deployment.chainId}, ${settlement.method}): escrow ${contracts.escrow}, ` +
      `${settlement.method === 'layerzero' ? 'app' : 'fill'} ${contracts.fill}` +
      `${contracts.messenger ? `, messenger ${contracts.messenger}` : ''}`,
  );
  console.log(`registry entry "${opts.name}" written to ${opts.out}`);
}

/** The chains of the registry file `file` (none when it does not exist yet). */
function registryChains(file: string): ChainEntry[] {
  if (!fs.existsSync(file)) return [];
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as RegistryFile).chains ?? [];
  } catch (error) {
    throw new CliError(`--out ${file} is not a registry file: ${(error as Error).message}`);
  }
}

/**
 * Refuses a settle grace below the worst case of a proof (settle-grace-rule.ts) on any route from the chain:
 * to each LayerZero chain already in the registry file, and to one like itself, standing in for chains deployed
 * later (each of those is judged as an input chain when it is deployed).
 */
async function checkSettleGrace(file: string, entry: ChainEntry, settleGrace: number): Promise<void> {
  const [{ createChainRegistry, graceRoutes }, { minimumSettleGrace, graceBreakdown }] = await Promise.all([
    import('../chains/chain-registry.ts'),
    import('../domain/settle-grace-rule.ts'),
  ]);
  let registry: ReturnType<typeof createChainRegistry>;
  try {
    const others = registryChains(file).filter((c) => c.name !== entry.name);
    registry = createChainRegistry({ chains: [...others, entry] });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError((error as Error).message.replace(/\n\s*/g, ' '));
  }
  const input = registry.chain(entry.name);
  if (!input) return;
  const outputs = registry.chains.filter((c) => c.settlement.method === 'layerzero');
  const worst = graceRoutes(registry, input, BigInt(settleGrace), outputs)
    .map((route) => ({ route, minimum: minimumSettleGrace(route) }))
    .sort((a, b) => b.minimum - a.minimum)[0];
  if (worst && settleGrace < worst.minimum) {
    const to = worst.route.outputChain === entry.name ? 'a chain like it' : worst.route.outputChain;
    throw new CliError(
      `--settle-grace ${settleGrace} is below the minimum of ${worst.minimum} s for orders from ${entry.name} ` +
        `filled on ${to}: ${graceBreakdown(worst.route)}; the grace cannot change once deployed`,
    );
  }
}

/** Adds (or replaces, by name) the chain's entry in the registry file, which must stay a valid registry. */
async function writeEntry(file: string, entry: ChainEntry): Promise<void> {
  const { createChainRegistry } = await import('../chains/chain-registry.ts');
  const chains = registryChains(file);
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
    import('../deploy/ferry-wire.ts'),
    import('../deploy/ferry-app-lock.ts'),
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
  const { checkFerryAppLocked } = await import('../deploy/ferry-app-lock.ts');
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
    .option(
      '--block-time <seconds>',
      "the chain's block time at most, in seconds (registry blockTimeSeconds; default 12)",
      positiveSeconds,
    )
    .option(
      '--dvn-verify-seconds <seconds>',
      'how long the DVNs take to verify a message from this chain after its confirmations (default 60)',
      integer(0, 86_400),
    )
    .option('--attester <address>', 'settle through AttesterMessenger trusting this address instead', address)
    .option(
      '--settle-grace <seconds>',
      'refunds open this long after fillDeadline',
      integer(60, 30 * 86_400),
      3600,
    )
    .option(
      '--protocol-fee-bps <bps>',
      "Ferry's fee on every order in bps of its input, fixed in the escrow (PROTOCOL_FEE_BPS must equal it)",
      integer(0, MAX_PROTOCOL_FEE_BPS),
      0,
    )
    .option(
      '--fee-recipient <address>',
      'where the escrow pays the protocol fee (needed with a fee)',
      address,
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
