import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  getContractAddress,
  type Hex,
  http,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainById } from '../chains/chain-by-id.ts';
import { ChainError } from '../chains/chain-error.ts';
import type { ChainLogger } from '../chains/chain-logger.ts';
import type { LzChainDeployment } from '../chains/layerzero/lz-chain-deployment.ts';
import { deployFerryChain } from '../deploy/ferry-deploy.ts';
import { type AnvilInstance, startAnvil } from './anvil-process.ts';
import type { DevnetChainConfig, DevnetContracts, DevnetMessenger } from './devnet-chain-config.ts';
import { topUpDevnetWallets } from './devnet-funding.ts';
import {
  DEVNET_LZ_CONFIRMATIONS,
  DEVNET_LZ_EIDS,
  DEVNET_LZ_OWNER_KEY,
  type DevnetRelayOptions,
  deployDevnetLayerZero,
  readDevnetLayerZero,
  startDevnetRelay,
  wireDevnetApps,
} from './devnet-layerzero.ts';
import { startIntervalMining } from './devnet-mining.ts';
import { DEFAULT_DEVNET_TOKENS, type DeployDevnetOptions } from './devnet-options.ts';
import { assertAttester, assertEscrowSettler, restoredDeploymentBlock } from './devnet-restore.ts';
import {
  assertDevnetTokens,
  type DevnetToken,
  deployDevnetTokens,
  initialiseDevnetTokens,
  plannedDevnetTokens,
} from './devnet-tokens.ts';
import type { LzRelay } from './layerzero/lz-relay.ts';
import { deploySafeContracts, type SafeContracts } from './safe-devnet.ts';

/**
 * anvil's well-known default accounts 0-4 (mnemonic "test test ... junk"). Public knowledge and funded on every
 * anvil chain: fine for a devnet, fatal anywhere else. Account 5 is the worker's relayer (below); accounts 6-9
 * belong to LayerZero's side of the devnets (src/devnet/devnet-layerzero.ts).
 */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
] as const satisfies readonly Hex[];

/** Account 0 deploys Ferry's contracts, so a fresh chain always gets the same contract addresses. */
export const DEVNET_DEPLOYER_KEY: Hex = ANVIL_KEYS[0];
/** Account 1 is the fill attester of attester devnets. */
export const DEVNET_ATTESTER_KEY: Hex = ANVIL_KEYS[1];
/**
 * Account 5 pays the settlement worker's gas on the devnets: a key of its own, apart from the attester's, as on a
 * real deployment (the worker refuses to start when the two are the same key).
 */
export const DEVNET_RELAYER_KEY: Hex = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
/**
 * Where the devnets' escrows pay the protocol fee (PROTOCOL_FEE_BPS): an address no devnet key controls and
 * nothing else uses, so its balance is exactly the fees collected.
 */
export const DEVNET_FEE_RECIPIENT: Address = '0x00000000000000000000000000000000000Fee01';
/** The worker's keys on the built-in devnets (well-known anvil keys: devnets only). */
export const DEVNET_WORKER_KEYS = { relayer: DEVNET_RELAYER_KEY, attester: DEVNET_ATTESTER_KEY } as const;

export interface AttesterDevnetContracts extends DevnetContracts {
  messenger: Address;
}

export interface DevnetDeployment<Contracts extends DevnetContracts = DevnetContracts> {
  chainId: number;
  contracts: Contracts;
  tokens: DevnetToken[];
  /** The block the first Ferry contract was deployed in: log scans start there (0 when it cannot be told). */
  startBlock: bigint;
  /** False when the contracts were already on chain (state restored from a state file). */
  deployed: boolean;
  /** Safe's contracts (contract-wallet offerers, EIP-1271): safe-devnet.ts. */
  safe: SafeContracts;
}

/**
 * Devnets keep the settle grace short so a refund test waits seconds, not minutes; long enough for the
 * worker's fallbacks on a fill made right at fillDeadline (prove after 5 s, deliver 10 s after that:
 * devnet-registry.ts), with room for the blocks in between.
 */
export const DEVNET_SETTLE_GRACE_SECONDS = 30;

const TOKEN_DECIMALS = 6;

/**
 * Deploys the tokens (devnet-tokens.ts: Circle's USDC, a test stablecoin for USDT), then Ferry's contracts through
 * `deployFerryChain` (attester: AttesterMessenger, FerryEscrow, FerryFill; LayerZero: FerryApp, FerryEscrow), then
 * Safe's, then initialises USDC, so on a fresh chain the addresses depend only on the deployer; then tops up the
 * demo wallets. If the contracts are already there - the chain was restored from a state file - it checks them
 * and only tops up.
 */
export async function deployDevnetContracts(
  options: DeployDevnetOptions & { attester: Address },
): Promise<DevnetDeployment<AttesterDevnetContracts>>;
export async function deployDevnetContracts(options: DeployDevnetOptions): Promise<DevnetDeployment>;
export async function deployDevnetContracts(options: DeployDevnetOptions): Promise<DevnetDeployment> {
  const { rpcUrl, chainId, attester, layerzeroEndpoint, log } = options;
  if ((attester === undefined) === (layerzeroEndpoint === undefined))
    throw new ChainError('deployDevnetContracts needs exactly one of attester and layerzeroEndpoint');
  const tokenSpecs = options.tokens ?? DEFAULT_DEVNET_TOKENS;
  const deployerKey = options.deployerKey ?? DEVNET_DEPLOYER_KEY;
  const account = privateKeyToAccount(deployerKey);
  const chain = chainById(chainId, rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });

  // CREATE addresses are keccak(deployer, nonce): nonces 0..n-1 are the tokens, then Ferry's contracts.
  const at = (nonce: number) => getContractAddress({ from: account.address, nonce: BigInt(nonce) });
  const n = tokenSpecs.length;
  const tokens: DevnetToken[] = plannedDevnetTokens(tokenSpecs, account.address);
  const tokenChain = { rpcUrl, chainId, deployerKey };
  const contracts: DevnetContracts = attester
    ? { messenger: at(n), escrow: at(n + 1), fill: at(n + 2) }
    : { fill: at(n), escrow: at(n + 1) };
  const planned = [...tokens.map((t) => t.address), ...Object.values(contracts)];

  const codes = await Promise.all(planned.map((address) => publicClient.getCode({ address })));
  const present = codes.filter((code) => code !== undefined && code !== '0x').length;
  let deployed = false;
  let startBlock = 0n;
  if (present === planned.length) {
    if (contracts.messenger && attester) await assertAttester(publicClient, contracts.messenger, attester);
    await assertEscrowSettler(publicClient, contracts.escrow, contracts.messenger ?? contracts.fill);
    await assertDevnetTokens(tokenChain, tokens);
    startBlock = await restoredDeploymentBlock(publicClient, account.address, n);
    log?.info({ chainId, ...contracts }, 'devnet contracts already deployed');
  } else {
    const nonce = await publicClient.getTransactionCount({ address: account.address });
    if (present > 0 || nonce !== 0) {
      throw new ChainError(
        `chain ${chainId}: deployer ${account.address} has nonce ${nonce} and ${present}/${planned.length} ` +
          'contracts exist; deterministic deployment needs a fresh chain (delete the devnet state file)',
      );
    }
    await deployDevnetTokens(tokenChain, tokenSpecs, tokens);
    const ferry = await deployFerryChain({
      rpcUrl,
      chainId,
      deployerKey,
      settleGrace: options.settleGrace ?? DEVNET_SETTLE_GRACE_SECONDS,
      feeRecipient: DEVNET_FEE_RECIPIENT,
      protocolFeeBps: options.protocolFeeBps ?? 0,
      settlement: attester
        ? { method: 'attester', attester }
        : { method: 'layerzero', endpoint: layerzeroEndpoint as Address },
    });
    for (const [role, address] of Object.entries(contracts)) {
      const actual = ferry.contracts[role as keyof DevnetContracts];
      if (actual?.toLowerCase() !== address.toLowerCase())
        throw new ChainError(
          `chain ${chainId}: ${role} deployed at ${actual}, not at the planned ${address}`,
        );
    }
    startBlock = ferry.startBlock;
    deployed = true;
    log?.info({ chainId, ...contracts, tokens }, 'devnet contracts deployed');
  }

  // Safe's contracts come right after the tokens and Ferry's three deployment transactions (either mode), at
  // nonces the docs' addresses assume; the apps' wiring follows once both chains are up.
  const safe = await deploySafeContracts({ publicClient, wallet }, { firstNonce: tokens.length + 3, log });
  // USDC's initialisation takes the deployer's next nonces, after every contract whose address the docs give.
  if (deployed) await initialiseDevnetTokens(tokenChain, tokens);
  await topUpDevnetWallets(options.mints ?? [], tokens, { publicClient, wallet, chainId, log });
  return { chainId, contracts, tokens, deployed, startBlock, safe };
}

export interface Devnets {
  chains: DevnetChainConfig[];
  messenger: DevnetMessenger;
  /** The address AttesterMessenger trusts on both chains (attester devnets; null on LayerZero devnets). */
  attester: Address | null;
  /**
   * The DVNs and executor delivering Ferry's messages between the devnets (LayerZero devnets; null once stopped,
   * or when started without it). Stop it to play "the executor is down".
   */
  readonly relay: LzRelay | null;
  /** Starts the relay again (or answers the running one); it picks up every message not yet delivered. */
  startRelay(options?: DevnetRelayOptions): LzRelay;
  /** Stops the relay and both anvils; their state files are written on the way out. */
  stop(): Promise<void>;
}

export interface StartDevnetsOptions {
  /** Directory for the anvil state files (devnet-a.state.json, devnet-b.state.json). */
  dataDir: string;
  /** Ports on 127.0.0.1; default 8545 and 8546. Use 0 for OS-assigned ports (tests). */
  ports?: readonly [number, number];
  chainIds?: readonly [number, number];
  /** How fills are proven: LayerZero V2 (default) or the attester key through AttesterMessenger. */
  messenger?: DevnetMessenger;
  /** Attester devnets: default the address of DEVNET_ATTESTER_KEY (anvil account 1). */
  attester?: Address;
  /** Wallets topped up with every token on both chains; default anvil accounts 2-4. */
  demoWallets?: readonly Address[];
  /** Per wallet, token and chain, in base units; default 1,000,000 tokens. */
  demoAmount?: bigint;
  /** The escrows' settle grace in seconds; default DEVNET_SETTLE_GRACE_SECONDS. */
  settleGrace?: number;
  /** The escrows' protocol fee in bps (PROTOCOL_FEE_BPS must equal it); default 0. */
  protocolFeeBps?: number;
  /**
   * Seconds between blocks once the contracts are deployed; 0 (default) mines each transaction at once. The
   * deployment itself always automines, so contract addresses and the start block stay deterministic.
   */
  blockTime?: number;
  /** LayerZero devnets: start the relay (default true), with these options when an object. */
  relay?: boolean | DevnetRelayOptions;
  log?: ChainLogger;
}

export const DEVNET_CHAIN_IDS = [900001, 900002] as const;
export const DEVNET_PORTS = [8545, 8546] as const;
const DEVNET_NAMES = ['devnet-a', 'devnet-b'] as const;

/**
 * Starts two local anvil chains ("devnet-a", "devnet-b") with Ferry's contracts deployed on both. LayerZero
 * devnets also get LayerZero V2 (deployed by its own key), Ferry's apps wired to each other and locked, and the
 * relay (two DVNs and the executor) running in this process.
 */
export async function startDevnets(options: StartDevnetsOptions): Promise<Devnets> {
  const { dataDir, log } = options;
  const messenger = options.messenger ?? 'layerzero';
  const ports = options.ports ?? DEVNET_PORTS;
  const chainIds = options.chainIds ?? DEVNET_CHAIN_IDS;
  const attester =
    messenger === 'attester' ? (options.attester ?? privateKeyToAccount(DEVNET_ATTESTER_KEY).address) : null;
  mkdirSync(dataDir, { recursive: true });

  const anvils: AnvilInstance[] = [];
  let relay: LzRelay | null = null;
  const stop = async () => {
    await relay?.stop();
    await Promise.all(anvils.map((anvil) => anvil.stop()));
  };
  try {
    for (const [i, name] of DEVNET_NAMES.entries()) {
      const stateFile = path.join(dataDir, `${name}.state.json`);
      const chainId = chainIds[i] as number;
      anvils.push(await startAnvil({ chainId, port: ports[i], stateFile, stateIntervalSeconds: 10, log }));
    }
    const started = await Promise.all(
      anvils.map((anvil, i) => startDevnetChain(anvil, i, { ...options, messenger, attester })),
    );
    const chains = started.map((s) => s.chain);
    if (messenger === 'layerzero')
      await wireDevnetApps(
        chains,
        started.some((s) => s.deployed) ? 'wire' : 'check',
        DEVNET_DEPLOYER_KEY,
        log,
      );
    if (options.blockTime) {
      for (const chain of chains)
        await startIntervalMining(chain.rpcUrl, chain.chainId, options.blockTime, log);
    }
    const startRelay = (relayOptions: DevnetRelayOptions = {}): LzRelay => {
      if (messenger !== 'layerzero') throw new ChainError('attester devnets have no LayerZero relay');
      if (relay) return relay;
      const lzChains = chains as (DevnetChainConfig & { layerzero: LzChainDeployment })[];
      const inner = startDevnetRelay(lzChains, log, relayOptions);
      // Stopping the relay, by whoever holds it, clears `devnets.relay`, so startRelay starts a new one.
      const handle: LzRelay = {
        stop: async () => {
          if (relay === handle) relay = null;
          await inner.stop();
        },
      };
      relay = handle;
      return handle;
    };
    if (messenger === 'layerzero' && options.relay !== false)
      startRelay(typeof options.relay === 'object' ? options.relay : {});
    return {
      chains,
      messenger,
      attester,
      get relay() {
        return relay;
      },
      startRelay,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function startDevnetChain(
  anvil: AnvilInstance,
  index: number,
  options: Omit<StartDevnetsOptions, 'attester'> & { messenger: DevnetMessenger; attester: Address | null },
): Promise<{ chain: DevnetChainConfig; deployed: boolean }> {
  const { messenger, log } = options;
  const { chainId, rpcUrl } = anvil;
  const demoWallets =
    options.demoWallets ?? ANVIL_KEYS.slice(2).map((key) => privateKeyToAccount(key).address);
  const demoAmount = options.demoAmount ?? 1_000_000n * 10n ** BigInt(TOKEN_DECIMALS);
  const eid = DEVNET_LZ_EIDS[index] as number;
  const remoteEid = DEVNET_LZ_EIDS[1 - index] as number;
  let layerzero: LzChainDeployment | null = null;
  let endpoint: Address | undefined;
  if (messenger === 'layerzero') {
    // LayerZero's owner deploys the endpoint with its first transaction: a restored chain has it there.
    const owner = privateKeyToAccount(DEVNET_LZ_OWNER_KEY).address;
    const publicClient = createPublicClient({ transport: http(rpcUrl) });
    const fresh = (await publicClient.getTransactionCount({ address: owner })) === 0;
    if (fresh) layerzero = await deployDevnetLayerZero(rpcUrl, chainId, eid, remoteEid);
    endpoint = layerzero?.endpoint ?? getContractAddress({ from: owner, nonce: 0n });
  }
  const deployment = await deployDevnetContracts({
    rpcUrl,
    chainId,
    ...(options.attester ? { attester: options.attester } : { layerzeroEndpoint: endpoint }),
    mints: demoWallets.map((to) => ({ to, amount: demoAmount })),
    ...(options.settleGrace === undefined ? {} : { settleGrace: options.settleGrace }),
    ...(options.protocolFeeBps === undefined ? {} : { protocolFeeBps: options.protocolFeeBps }),
    log,
  });
  if (messenger === 'layerzero') {
    layerzero = deployment.deployed
      ? { ...(layerzero as LzChainDeployment), startBlock: deployment.startBlock }
      : await readDevnetLayerZero(
          rpcUrl,
          chainId,
          deployment.contracts.fill,
          remoteEid,
          deployment.startBlock,
        );
  }
  const chain: DevnetChainConfig = {
    name: DEVNET_NAMES[index] as string,
    chainId,
    rpcUrl,
    // The relay's DVNs attest this many blocks and the pinned ULN config requires as many: one value, or every commit
    // reverts.
    confirmations: DEVNET_LZ_CONFIRMATIONS,
    startBlock: deployment.startBlock,
    contracts: deployment.contracts,
    explorerUrl: undefined,
    tokens: deployment.tokens,
    messenger,
    layerzero,
    safe: deployment.safe,
  };
  return { chain, deployed: deployment.deployed };
}
