import { readFileSync } from 'node:fs';
import type { Abi, Hex } from 'viem';
import { ChainError } from './chain-error.ts';

/** Every contract with a committed artifact in src/chains/artifacts/ (regenerate: scripts/compile-contracts.ts). */
export const CONTRACT_NAMES = [
  'AttesterMessenger',
  'FalseToken',
  'FerryApp',
  'FerryEscrow',
  'FerryFill',
  'GasPriceGatedOfferer',
  'NoReturnToken',
  'ReentrantToken',
  'TestStablecoin',
] as const;

export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface ContractArtifact {
  contractName: ContractName;
  abi: Abi;
  bytecode: Hex;
  sourceHash: string;
}

const cache = new Map<ContractName, ContractArtifact>();

/** Loads (and caches) the committed compiler output for `name`. */
export function loadArtifact(name: ContractName): ContractArtifact {
  let artifact = cache.get(name);
  if (!artifact) {
    const file = new URL(`./artifacts/${name}.json`, import.meta.url);
    artifact = JSON.parse(readFileSync(file, 'utf8')) as ContractArtifact;
    if (artifact.contractName !== name)
      throw new ChainError(`artifact ${file.pathname} holds ${artifact.contractName}`);
    cache.set(name, artifact);
  }
  return artifact;
}
