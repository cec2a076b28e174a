import { type Abi, type Address, createTestClient, getContractAddress, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainById } from '../chains/chain-by-id.ts';
import { ChainError } from '../chains/chain-error.ts';
import { loadArtifact } from '../chains/contract-artifacts.ts';
import { deployLz, type LzChainClient, lzChainClient } from '../chains/layerzero/lz-chain-client.ts';
import type { DevnetTokenContract, DevnetTokenSpec } from './devnet-options.ts';
import {
  assertCircleUsdc,
  DEVNET_USDC_ADMIN_KEY,
  deployUsdcImplementation,
  deployUsdcProxy,
  initialiseUsdc,
  USDC_ADMIN_ETH,
  USDC_PERMIT_DOMAIN,
  usdcAbi,
} from './usdc-devnet.ts';

/*
 * The devnets' tokens: Circle's USDC (FiatTokenV2_2 behind FiatTokenProxy, usdc-devnet.ts) and a plain test
 * stablecoin (TestStablecoin) for USDT. Each token's address is the deployer's CREATE address at its index, so the
 * tokens come first and Ferry's and Safe's contracts keep the addresses they always had. Circle's token takes two
 * steps around them: its implementation (by USDC's admin, another account) and its proxy (by the deployer, at the
 * token's nonce) before Ferry's contracts; the proxy's initialisation, which takes nonces of its own, after Safe's.
 */

const TOKEN_DECIMALS = 6;

export interface DevnetToken {
  symbol: string;
  address: Address;
  decimals: number;
  contract: DevnetTokenContract;
  /** The token's EIP-2612 domain: Circle's USDC signs as "USD Coin" version "2", TestStablecoin as its name, "1". */
  permit: { name: string; version: string };
}

/** The ABI a devnet token is minted, paused and blacklisted through. */
export function devnetTokenAbi(contract: DevnetTokenContract): Abi {
  return contract === 'FiatTokenV2_2' ? usdcAbi : loadArtifact('TestStablecoin').abi;
}

/** Where `specs` land on a fresh chain: token i at the deployer's nonce i. */
export function plannedDevnetTokens(specs: readonly DevnetTokenSpec[], deployer: Address): DevnetToken[] {
  return specs.map((spec, i) => ({
    symbol: spec.symbol,
    address: getContractAddress({ from: deployer, nonce: BigInt(i) }),
    decimals: TOKEN_DECIMALS,
    contract: spec.contract,
    permit:
      spec.contract === 'FiatTokenV2_2'
        ? { name: USDC_PERMIT_DOMAIN.name, version: USDC_PERMIT_DOMAIN.version }
        : { name: spec.name, version: '1' },
  }));
}

function clients(rpcUrl: string, chainId: number, deployerKey: Hex) {
  return {
    deployer: lzChainClient(rpcUrl, chainId, deployerKey),
    admin: lzChainClient(rpcUrl, chainId, DEVNET_USDC_ADMIN_KEY),
  };
}

/**
 * First deployment step on a fresh chain (the deployer at nonce 0): every token at its planned address; Circle's
 * proxies are left to initialiseDevnetTokens.
 */
export async function deployDevnetTokens(
  chain: { rpcUrl: string; chainId: number; deployerKey: Hex },
  specs: readonly DevnetTokenSpec[],
  tokens: readonly DevnetToken[],
): Promise<void> {
  const { deployer, admin } = clients(chain.rpcUrl, chain.chainId, chain.deployerKey);
  let implementation: Address | null = null;
  if (tokens.some((t) => t.contract === 'FiatTokenV2_2')) {
    const testClient = createTestClient({
      mode: 'anvil',
      chain: chainById(chain.chainId, chain.rpcUrl),
      transport: http(chain.rpcUrl),
    });
    await testClient.setBalance({ address: admin.account, value: USDC_ADMIN_ETH });
    implementation = await deployUsdcImplementation(admin);
  }
  for (const [i, token] of tokens.entries()) {
    const spec = specs[i] as DevnetTokenSpec;
    const address =
      token.contract === 'FiatTokenV2_2'
        ? await deployUsdcProxy(deployer, implementation as Address)
        : await deployTestStablecoin(deployer, spec);
    if (address.toLowerCase() !== token.address.toLowerCase())
      throw new ChainError(
        `deploying ${token.symbol} on chain ${chain.chainId}: ${address}, not ${token.address}`,
      );
  }
}

async function deployTestStablecoin(deployer: LzChainClient, spec: DevnetTokenSpec): Promise<Address> {
  return (await deployLz(deployer, spec.symbol, loadArtifact('TestStablecoin'), [spec.name, spec.symbol]))
    .address;
}

/** Last deployment step on a fresh chain: Circle's proxies handed to USDC's admin and initialised. */
export async function initialiseDevnetTokens(
  chain: { rpcUrl: string; chainId: number; deployerKey: Hex },
  tokens: readonly DevnetToken[],
): Promise<void> {
  const { deployer, admin } = clients(chain.rpcUrl, chain.chainId, chain.deployerKey);
  for (const token of tokens) {
    if (token.contract === 'FiatTokenV2_2') await initialiseUsdc(deployer, token.address, admin.account);
  }
}

/** On a chain restored from its state file: Circle's tokens are Circle's, set up to the end. */
export async function assertDevnetTokens(
  chain: { rpcUrl: string; chainId: number; deployerKey: Hex },
  tokens: readonly DevnetToken[],
): Promise<void> {
  const { publicClient } = lzChainClient(chain.rpcUrl, chain.chainId, chain.deployerKey);
  const deployer = privateKeyToAccount(chain.deployerKey).address;
  for (const token of tokens) {
    if (token.contract === 'FiatTokenV2_2') await assertCircleUsdc(publicClient, token.address, deployer);
  }
}
