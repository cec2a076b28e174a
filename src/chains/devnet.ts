import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getContractAddress,
  type Hex,
  http,
  type PublicClient,
  parseEther,
  type Transport,
  type WalletClient,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type AnvilInstance, startAnvil } from './anvil-process.ts';
import type { ChainLogger } from './chain-logger.ts';
import { type ContractName, loadArtifact } from './contract-artifacts.ts';
import { deploySafeContracts, type SafeContracts } from './safe-devnet.ts';

/**
 * anvil's well-known default accounts (mnemonic "test test ... junk"). Public knowledge and funded on every
 * anvil chain: fine for a devnet, fatal anywhere else.
 */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
] as const satisfies readonly Hex[];

/** Account 0 deploys everything, so a fresh chain always gets the same contract addresses. */
export const DEVNET_DEPLOYER_KEY: Hex = ANVIL_KEYS[0];
/** Account 1 is the default fill attester. */
export const DEVNET_ATTESTER_KEY: Hex = ANVIL_KEYS[1];
/**
 * Account 5 pays the settlement worker's gas on the devnets: a key of its own, apart from the attester's, as on a
 * real deployment (the worker refuses to start when the two are the same key).
 */
export const DEVNET_RELAYER_KEY: Hex = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
/** The worker's keys on the built-in devnets (well-known anvil keys: devnets only). */
export const DEVNET_WORKER_KEYS = { relayer: DEVNET_RELAYER_KEY, attester: DEVNET_ATTESTER_KEY } as const;

export interface DevnetTokenSpec {
  symbol: string;
  name: string;
}

export const DEFAULT_DEVNET_TOKENS: readonly DevnetTokenSpec[] = [
  { symbol: 'USDC', name: 'Devnet USD Coin' },
  { symbol: 'USDT', name: 'Devnet Tether USD' },
];

export interface DevnetToken {
  symbol: string;
  address: Address;
  decimals: number;
  /** The token's name: its EIP-2612 domain name (version "1"). */
  name: string;
}

export interface DevnetContracts {
  escrow: Address;
  fill: Address;
  messenger: Address;
}

export interface DevnetDeployment {
  chainId: number;
  contracts: DevnetContracts;
  tokens: DevnetToken[];
  /** The block the first Ferry contract was deployed in: log scans start there (0 when it cannot be told). */
  startBlock: bigint;
  /** False when the contracts were already on chain (state restored from a state file). */
  deployed: boolean;
  /** Safe's contracts (contract-wallet offerers, EIP-1271): safe-devnet.ts. */
  safe: SafeContracts;
}

export interface DeployDevnetOptions {
  rpcUrl: string;
  chainId: number;
  /** Default: anvil account 0. Must have sent no transaction before the first deployment. */
  deployerKey?: Hex;
  /** Address whose EIP-712 FillAttestation signatures settle orders. */
  attester: Address;
  /** Default: USDC and USDT. Order matters: it determines the addresses. */
  tokens?: readonly DevnetTokenSpec[];
  /** Every wallet is topped up to at least `amount` (base units, 6 decimals) of every token. */
  mints?: readonly { to: Address; amount: bigint }[];
  /** The escrow's settle grace in seconds (refunds open this long after fillDeadline). */
  settleGrace?: number;
  log?: ChainLogger;
}

/**
 * Devnets keep the settle grace short so a refund test waits seconds, not minutes; long enough for the
 * worker to see, attest and relay a fill made right at fillDeadline.
 */
export const DEVNET_SETTLE_GRACE_SECONDS = 10;

const TOKEN_DECIMALS = 6;
/** Demo wallets with no ETH at all get this much so they can pay for gas. */
const DEMO_WALLET_ETH = parseEther('100');

export function devnetChain(chainId: number, rpcUrl: string, name = `devnet-${chainId}`): Chain {
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * Deploys the test stablecoins, AttesterMessenger, FerryEscrow and FerryFill (in that order, so on a fresh
 * chain the addresses depend only on the deployer), then tops up the demo wallets. If the contracts are
 * already there - the chain was restored from a state file - it only tops up.
 */
export async function deployDevnetContracts(options: DeployDevnetOptions): Promise<DevnetDeployment> {
  const { rpcUrl, chainId, attester, log } = options;
  const tokenSpecs = options.tokens ?? DEFAULT_DEVNET_TOKENS;
  const account = privateKeyToAccount(options.deployerKey ?? DEVNET_DEPLOYER_KEY);
  const chain = devnetChain(chainId, rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });

  // CREATE addresses are keccak(deployer, nonce): nonces 0..n-1 are the tokens, then messenger, escrow, fill.
  const at = (nonce: number) => getContractAddress({ from: account.address, nonce: BigInt(nonce) });
  const tokens: DevnetToken[] = tokenSpecs.map((t, i) => ({
    symbol: t.symbol,
    address: at(i),
    decimals: TOKEN_DECIMALS,
    name: t.name,
  }));
  const contracts: DevnetContracts = {
    messenger: at(tokenSpecs.length),
    escrow: at(tokenSpecs.length + 1),
    fill: at(tokenSpecs.length + 2),
  };
  const planned = [...tokens.map((t) => t.address), contracts.messenger, contracts.escrow, contracts.fill];

  const codes = await Promise.all(planned.map((address) => publicClient.getCode({ address })));
  const present = codes.filter((code) => code !== undefined && code !== '0x').length;
  let deployed = false;
  let startBlock = 0n;
  if (present === planned.length) {
    await assertAttester(publicClient, contracts, attester);
    await assertEscrowHasGrace(publicClient, contracts);
    startBlock = await restoredDeploymentBlock(publicClient, account.address, tokenSpecs.length);
    log?.info({ chainId, ...contracts }, 'devnet contracts already deployed');
  } else {
    const nonce = await publicClient.getTransactionCount({ address: account.address });
    if (present > 0 || nonce !== 0) {
      throw new Error(
        `chain ${chainId}: deployer ${account.address} has nonce ${nonce} and ${present}/${planned.length} ` +
          'contracts exist; deterministic deployment needs a fresh chain (delete the devnet state file)',
      );
    }
    const deploy = async (name: ContractName, args: readonly unknown[], expected: Address) => {
      const { abi, bytecode } = loadArtifact(name);
      const hash = await wallet.deployContract({ abi, bytecode, args });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success' || receipt.contractAddress?.toLowerCase() !== expected.toLowerCase()) {
        throw new Error(`deploying ${name} on chain ${chainId} failed (tx ${hash})`);
      }
      return receipt.blockNumber;
    };
    for (const [i, spec] of tokenSpecs.entries()) {
      await deploy('TestStablecoin', [spec.name, spec.symbol], planned[i] as Address);
    }
    startBlock = await deploy('AttesterMessenger', [attester], contracts.messenger);
    const grace = BigInt(options.settleGrace ?? DEVNET_SETTLE_GRACE_SECONDS);
    await deploy('FerryEscrow', [contracts.messenger, grace], contracts.escrow);
    await deploy('FerryFill', [], contracts.fill);
    deployed = true;
    log?.info({ chainId, ...contracts, tokens }, 'devnet contracts deployed');
  }

  const safe = await deploySafeContracts({ publicClient, wallet }, { firstNonce: planned.length, log });
  await topUp(options.mints ?? [], tokens, { publicClient, wallet, chainId, log });
  return { chainId, contracts, tokens, deployed, startBlock, safe };
}

/**
 * On a chain restored from a state file the deployment receipts are not at hand; the messenger's deployment is
 * the deployer's transaction with nonce `tokenCount`, mined alone in block `tokenCount + 1` by the automining
 * deployment. If that block says otherwise (or is not kept), scans start at 0: slower, never wrong.
 */
async function restoredDeploymentBlock(
  publicClient: PublicClient,
  deployer: Address,
  tokenCount: number,
): Promise<bigint> {
  const blockNumber = BigInt(tokenCount + 1);
  try {
    const block = await publicClient.getBlock({ blockNumber, includeTransactions: true });
    const creates = block.transactions.some(
      (tx) => tx.from.toLowerCase() === deployer.toLowerCase() && tx.nonce === tokenCount && tx.to === null,
    );
    return creates ? blockNumber : 0n;
  } catch {
    return 0n;
  }
}

async function assertAttester(publicClient: PublicClient, contracts: DevnetContracts, attester: Address) {
  const { abi } = loadArtifact('AttesterMessenger');
  const onChain = (await publicClient.readContract({
    address: contracts.messenger,
    abi,
    functionName: 'attester',
  })) as Address;
  if (onChain.toLowerCase() !== attester.toLowerCase()) {
    throw new Error(
      `devnet messenger ${contracts.messenger} trusts attester ${onChain}, expected ${attester}`,
    );
  }
}

/** A state file written before the escrow had a settle grace holds an escrow the worker cannot use. */
async function assertEscrowHasGrace(publicClient: PublicClient, contracts: DevnetContracts) {
  const { abi } = loadArtifact('FerryEscrow');
  try {
    await publicClient.readContract({ address: contracts.escrow, abi, functionName: 'settleGrace' });
  } catch (cause) {
    throw new Error(
      `devnet escrow ${contracts.escrow} predates the settle grace; delete the devnet state file`,
      { cause },
    );
  }
}

async function topUp(
  mints: readonly { to: Address; amount: bigint }[],
  tokens: readonly DevnetToken[],
  ctx: {
    publicClient: PublicClient<Transport, Chain>;
    wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
    chainId: number;
    log?: ChainLogger;
  },
) {
  const { abi } = loadArtifact('TestStablecoin');
  const { publicClient, wallet } = ctx;
  const testClient = createTestClient({
    mode: 'anvil',
    chain: wallet.chain,
    transport: http(wallet.chain.rpcUrls.default.http[0]),
  });
  for (const { to, amount } of mints) {
    if ((await publicClient.getBalance({ address: to })) === 0n) {
      await testClient.setBalance({ address: to, value: DEMO_WALLET_ETH });
    }
    for (const token of tokens) {
      const balance = (await publicClient.readContract({
        address: token.address,
        abi,
        functionName: 'balanceOf',
        args: [to],
      })) as bigint;
      if (balance >= amount) continue;
      const hash = await wallet.writeContract({
        address: token.address,
        abi,
        functionName: 'mint',
        args: [to, amount - balance],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success')
        throw new Error(`minting ${token.symbol} to ${to} failed (tx ${hash})`);
      ctx.log?.info(
        { chainId: ctx.chainId, token: token.symbol, to, amount: String(amount - balance) },
        'minted',
      );
    }
  }
}

export interface DevnetChainConfig {
  name: string;
  chainId: number;
  rpcUrl: string;
  confirmations: number;
  startBlock: bigint;
  contracts: DevnetContracts;
  explorerUrl: string | undefined;
  tokens: DevnetToken[];
  safe: SafeContracts;
}

export interface Devnets {
  chains: DevnetChainConfig[];
  /** The address AttesterMessenger trusts on both chains. */
  attester: Address;
  /** Stops both anvils; their state files are written on the way out. */
  stop(): Promise<void>;
}

export interface StartDevnetsOptions {
  /** Directory for the anvil state files (devnet-a.state.json, devnet-b.state.json). */
  dataDir: string;
  /** Ports on 127.0.0.1; default 8545 and 8546. Use 0 for OS-assigned ports (tests). */
  ports?: readonly [number, number];
  chainIds?: readonly [number, number];
  /** Default: the address of DEVNET_ATTESTER_KEY (anvil account 1). */
  attester?: Address;
  /** Wallets topped up with every token on both chains; default anvil accounts 2-4. */
  demoWallets?: readonly Address[];
  /** Per wallet, token and chain, in base units; default 1,000,000 tokens. */
  demoAmount?: bigint;
  /** The escrows' settle grace in seconds; default DEVNET_SETTLE_GRACE_SECONDS. */
  settleGrace?: number;
  /**
   * Seconds between blocks once the contracts are deployed; 0 (default) mines each transaction at once. The
   * deployment itself always automines, so contract addresses and the start block stay deterministic.
   */
  blockTime?: number;
  log?: ChainLogger;
}

export const DEVNET_CHAIN_IDS = [900001, 900002] as const;
export const DEVNET_PORTS = [8545, 8546] as const;

/** Starts two local anvil chains ("devnet-a", "devnet-b") with Ferry's contracts deployed on both. */
export async function startDevnets(options: StartDevnetsOptions): Promise<Devnets> {
  const { dataDir, log } = options;
  const ports = options.ports ?? DEVNET_PORTS;
  const chainIds = options.chainIds ?? DEVNET_CHAIN_IDS;
  const attester = options.attester ?? privateKeyToAccount(DEVNET_ATTESTER_KEY).address;
  const demoWallets =
    options.demoWallets ?? ANVIL_KEYS.slice(2).map((key) => privateKeyToAccount(key).address);
  const demoAmount = options.demoAmount ?? 1_000_000n * 10n ** BigInt(TOKEN_DECIMALS);
  mkdirSync(dataDir, { recursive: true });

  const names = ['devnet-a', 'devnet-b'] as const;
  const anvils: AnvilInstance[] = [];
  const stop = async () => {
    await Promise.all(anvils.map((anvil) => anvil.stop()));
  };
  try {
    const chains: DevnetChainConfig[] = [];
    for (const [i, name] of names.entries()) {
      const chainId = chainIds[i] as number;
      const anvil = await startAnvil({
        chainId,
        port: ports[i],
        stateFile: path.join(dataDir, `${name}.state.json`),
        stateIntervalSeconds: 10,
        log,
      });
      anvils.push(anvil);
      const deployment = await deployDevnetContracts({
        rpcUrl: anvil.rpcUrl,
        chainId,
        attester,
        mints: demoWallets.map((to) => ({ to, amount: demoAmount })),
        ...(options.settleGrace === undefined ? {} : { settleGrace: options.settleGrace }),
        log,
      });
      if (options.blockTime) await startIntervalMining(anvil.rpcUrl, chainId, options.blockTime, log);
      chains.push({
        name,
        chainId,
        rpcUrl: anvil.rpcUrl,
        confirmations: 1,
        startBlock: deployment.startBlock,
        contracts: deployment.contracts,
        explorerUrl: undefined,
        tokens: deployment.tokens,
        safe: deployment.safe,
      });
    }
    return { chains, attester, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Switches an anvil from mining each transaction at once to one block every `seconds` (automine off). */
async function startIntervalMining(rpcUrl: string, chainId: number, seconds: number, log?: ChainLogger) {
  const testClient = createTestClient({
    mode: 'anvil',
    chain: devnetChain(chainId, rpcUrl),
    transport: http(rpcUrl),
  });
  await testClient.setIntervalMining({ interval: seconds });
  log?.info({ chainId, blockTimeSeconds: seconds }, 'devnet interval mining on');
}
