import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Abi, Hex } from 'viem';
import { ChainError } from '../chain-error.ts';

/**
 * LayerZero V2's own contracts, deployed from the compiled artifacts their npm packages ship (licence LZBL-1.2:
 * non-production use, which is what devnets and tests are). Nothing here is recompiled, so the bytecode on the
 * devnets is the bytecode LayerZero published.
 */
const ARTIFACT_FILES = {
  EndpointV2: '@layerzerolabs/lz-evm-protocol-v2/artifacts/contracts/EndpointV2.sol/EndpointV2.json',
  SendUln302:
    '@layerzerolabs/lz-evm-messagelib-v2/artifacts/contracts/uln/uln302/SendUln302.sol/SendUln302.json',
  ReceiveUln302:
    '@layerzerolabs/lz-evm-messagelib-v2/artifacts/contracts/uln/uln302/ReceiveUln302.sol/ReceiveUln302.json',
  DVN: '@layerzerolabs/lz-evm-messagelib-v2/artifacts/contracts/uln/dvn/DVN.sol/DVN.json',
  Executor: '@layerzerolabs/lz-evm-messagelib-v2/artifacts/contracts/Executor.sol/Executor.json',
} as const;

export type LzContractName = keyof typeof ARTIFACT_FILES;

export interface LzArtifact {
  contractName: LzContractName;
  abi: Abi;
  bytecode: Hex;
}

interface HardhatArtifact {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
  linkReferences: Record<string, unknown>;
}

const require = createRequire(import.meta.url);
const cache = new Map<LzContractName, LzArtifact>();

/** Loads (and caches) the packaged artifact of a LayerZero contract; refuses one that needs library linking. */
export function loadLzArtifact(name: LzContractName): LzArtifact {
  let artifact = cache.get(name);
  if (!artifact) {
    const file = require.resolve(ARTIFACT_FILES[name]);
    const raw = JSON.parse(readFileSync(file, 'utf8')) as HardhatArtifact;
    if (raw.contractName !== name) throw new ChainError(`${file} holds ${raw.contractName}, not ${name}`);
    // An unlinked library placeholder would deploy as garbage; these five are known to need none.
    if (Object.keys(raw.linkReferences ?? {}).length > 0)
      throw new ChainError(`${name} needs library linking`);
    artifact = { contractName: name, abi: raw.abi, bytecode: raw.bytecode };
    cache.set(name, artifact);
  }
  return artifact;
}

let errorAbi: Abi | undefined;

/**
 * The custom errors of every LayerZero contract, so a revert deep inside (the endpoint under ReceiveUln302, the
 * OApp under the endpoint) is named, not shown as a bare selector.
 */
export function lzErrorAbi(): Abi {
  errorAbi ??= (Object.keys(ARTIFACT_FILES) as LzContractName[]).flatMap((name) =>
    loadLzArtifact(name).abi.filter((item) => item.type === 'error'),
  );
  return errorAbi;
}

/**
 * Init code of a worker fee library that answers every call with uint256(0): runtime `PUSH1 0 PUSH1 0 MSTORE
 * PUSH1 32 PUSH1 0 RETURN`. The DVN and Executor contracts ask their fee library for a price on every send, and
 * LayerZero's own fee libraries need a price feed with live gas prices; devnets charge no fees, so both workers
 * point at this. It is deliberately not Solidity: ten bytes of runtime, no compiler, nothing to audit.
 */
export const ZERO_FEE_LIB_INIT_CODE: Hex = '0x600a600c600039600a6000f3600060005260206000f3';
