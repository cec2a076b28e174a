import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  type Abi,
  type Address,
  type Chain,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
  zeroAddress,
} from 'viem';
import { ChainError } from '../chains/chain-error.ts';
import type { ChainLogger } from '../chains/chain-logger.ts';

/**
 * Safe{Wallet}'s own contracts (npm `@safe-global/safe-contracts` 1.4.1, as published) on a devnet, so contract-wallet
 * offerers (EIP-1271) run against the real thing: the singleton, the proxy factory and the fallback handler
 * through which a Safe answers isValidSignature. Devnets only: it sends with the deployer's well-known key.
 */
export interface SafeContracts {
  readonly singleton: Address;
  readonly proxyFactory: Address;
  readonly fallbackHandler: Address;
}

type SafeArtifactName = 'Safe' | 'SafeProxyFactory' | 'CompatibilityFallbackHandler';

const ARTIFACT_PATHS: Record<SafeArtifactName, string> = {
  Safe: 'Safe.sol/Safe.json',
  SafeProxyFactory: 'proxies/SafeProxyFactory.sol/SafeProxyFactory.json',
  CompatibilityFallbackHandler: 'handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json',
};

const artifacts = new Map<SafeArtifactName, { abi: Abi; bytecode: Hex }>();

/** The published artifact (abi, creation bytecode) of one of Safe's contracts. */
export function safeArtifact(name: SafeArtifactName): { abi: Abi; bytecode: Hex } {
  let artifact = artifacts.get(name);
  if (!artifact) {
    const root = path.dirname(
      createRequire(import.meta.url).resolve('@safe-global/safe-contracts/package.json'),
    );
    const file = path.join(root, 'build', 'artifacts', 'contracts', ARTIFACT_PATHS[name]);
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { abi: Abi; bytecode: Hex };
    artifact = { abi: parsed.abi, bytecode: parsed.bytecode };
    artifacts.set(name, artifact);
  }
  return artifact;
}

export interface DevnetClients {
  readonly publicClient: PublicClient<Transport, Chain>;
  readonly wallet: WalletClient<Transport, Chain, LocalAccount>;
}

const ORDER: readonly SafeArtifactName[] = ['Safe', 'SafeProxyFactory', 'CompatibilityFallbackHandler'];

/**
 * Deploys the singleton, the proxy factory and the fallback handler from the wallet's account, at its nonces
 * `firstNonce`..+2 on a fresh chain (so their addresses are known in advance); where they already are (a chain
 * restored from a state file) nothing is sent.
 */
export async function deploySafeContracts(
  clients: DevnetClients,
  options: { firstNonce: number; log?: ChainLogger },
): Promise<SafeContracts> {
  const { publicClient, wallet } = clients;
  const from = wallet.account.address;
  const planned = ORDER.map((_, i) => getContractAddress({ from, nonce: BigInt(options.firstNonce + i) }));
  const codes = await Promise.all(planned.map((address) => publicClient.getCode({ address })));
  const addresses: Address[] = [];
  for (const [i, name] of ORDER.entries()) {
    const code = codes[i];
    if (code !== undefined && code !== '0x') {
      addresses.push(planned[i] as Address);
      continue;
    }
    const { abi, bytecode } = safeArtifact(name);
    const hash = await wallet.deployContract({ abi, bytecode });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !receipt.contractAddress) {
      throw new ChainError(`deploying Safe's ${name} on chain ${wallet.chain.id} failed (tx ${hash})`);
    }
    addresses.push(getAddress(receipt.contractAddress));
  }
  const [singleton, proxyFactory, fallbackHandler] = addresses as [Address, Address, Address];
  options.log?.info({ chainId: wallet.chain.id, singleton, proxyFactory, fallbackHandler }, 'Safe contracts');
  return { singleton, proxyFactory, fallbackHandler };
}

/** A new Safe (a proxy of the singleton) with these owners and threshold and the compatibility fallback handler. */
export async function createSafe(
  clients: DevnetClients,
  contracts: SafeContracts,
  options: { owners: readonly Address[]; threshold: number; saltNonce?: bigint },
): Promise<Address> {
  const { publicClient, wallet } = clients;
  const initializer = encodeFunctionData({
    abi: safeArtifact('Safe').abi,
    functionName: 'setup',
    args: [
      options.owners,
      BigInt(options.threshold),
      zeroAddress,
      '0x',
      contracts.fallbackHandler,
      zeroAddress,
      0n,
      zeroAddress,
    ],
  });
  const call = {
    address: contracts.proxyFactory,
    abi: safeArtifact('SafeProxyFactory').abi,
    functionName: 'createProxyWithNonce',
    args: [contracts.singleton, initializer, options.saltNonce ?? BigInt(Date.now())],
    account: wallet.account,
  } as const;
  const { result, request } = await publicClient.simulateContract(call);
  const hash = await wallet.writeContract(request);
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new ChainError(`creating a Safe failed (tx ${hash})`);
  return result as Address;
}

/** Owners' raw ECDSA signatures over `hash`, concatenated in ascending owner-address order (as Safe checks them). */
export async function ownerSignatures(owners: readonly LocalAccount[], hash: Hex): Promise<Hex> {
  const sorted = [...owners].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  const parts: Hex[] = [];
  for (const owner of sorted) {
    if (!owner.sign) throw new ChainError(`owner ${owner.address} cannot sign raw hashes`);
    parts.push(await owner.sign({ hash }));
  }
  return `0x${parts.map((p) => p.slice(2)).join('')}`;
}

/** Executes a call from the Safe (value 0, CALL), signed by `owners`, sent and paid for by `clients.wallet`. */
export async function execSafeTransaction(
  clients: DevnetClients,
  options: { safe: Address; to: Address; data: Hex; owners: readonly LocalAccount[] },
): Promise<Hex> {
  const { publicClient, wallet } = clients;
  const abi = safeArtifact('Safe').abi;
  const { safe, to, data } = options;
  const nonce = (await publicClient.readContract({ address: safe, abi, functionName: 'nonce' })) as bigint;
  const tx = [to, 0n, data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress] as const;
  const txHash = (await publicClient.readContract({
    address: safe,
    abi,
    functionName: 'getTransactionHash',
    args: [...tx, nonce],
  })) as Hex;
  const signatures = await ownerSignatures(options.owners, txHash);
  const hash = await wallet.writeContract({
    address: safe,
    abi,
    functionName: 'execTransaction',
    args: [...tx, signatures],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new ChainError(`Safe transaction ${hash} reverted`);
  return hash;
}

/**
 * The Safe's EIP-1271 signature over `digest`, as its CompatibilityFallbackHandler checks it: the owners sign the
 * Safe's message hash of `abi.encode(digest)` (EIP-712 `SafeMessage`, read from the Safe itself).
 */
export async function safeMessageSignature(
  publicClient: PublicClient,
  options: { safe: Address; digest: Hex; owners: readonly LocalAccount[] },
): Promise<Hex> {
  const messageHash = (await publicClient.readContract({
    address: options.safe,
    abi: safeArtifact('CompatibilityFallbackHandler').abi,
    functionName: 'getMessageHash',
    args: [encodeAbiParameters([{ type: 'bytes32' }], [options.digest])],
  })) as Hex;
  return ownerSignatures(options.owners, messageHash);
}
