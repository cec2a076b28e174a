import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import type { Abi, Hex } from 'viem';
import { ChainError } from '../chains/chain-error.ts';

/** Repository root (this file lives in src/chains/). */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const CONTRACTS_DIR = path.join(REPO_ROOT, 'contracts');
/**
 * The Foundry fuzz and invariant suites (`npm run test:contracts`) live under contracts/ beside what they test, but
 * they are no part of Ferry's build: their test contracts get no artifacts and do not change sourceHash.
 */
const FOUNDRY_DIR = 'foundry';
export const ARTIFACTS_DIR = fileURLToPath(new URL('../chains/artifacts/', import.meta.url));

/**
 * Compiler settings for every Ferry contract. "cancun" gives us PUSH0/MCOPY (cheaper code) and is supported
 * by anvil and every chain Ferry targets; changing anything here changes all bytecode and sourceHash.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: {
    '*': { '*': ['abi', 'evm.bytecode.object'], '': ['ast'] },
  },
} as const;

export interface CompiledContract {
  contractName: string;
  /** Source unit name, e.g. "contracts/FerryEscrow.sol". */
  sourcePath: string;
  abi: Abi;
  bytecode: Hex;
  /** sha256 over compiler version, settings and every source: the same for all contracts of one build. */
  sourceHash: string;
}

export interface CompileResult {
  contracts: CompiledContract[];
  warnings: string[];
}

interface SolcMessage {
  severity: 'error' | 'warning' | 'info';
  formattedMessage: string;
}

interface SolcAstNode {
  nodeType: string;
  name?: string;
  contractKind?: string;
  abstract?: boolean;
  nodes?: SolcAstNode[];
}

interface SolcOutput {
  errors?: SolcMessage[];
  sources?: Record<string, { ast: SolcAstNode }>;
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/** Reads every .sol file under `contractsDir`, keyed by its path relative to the repo (posix separators). */
export function readContractSources(contractsDir = CONTRACTS_DIR): Record<string, { content: string }> {
  const root = path.dirname(contractsDir);
  const files = (readdirSync(contractsDir, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.sol') && file.split(path.sep)[0] !== FOUNDRY_DIR)
    .map((file) => path.join(contractsDir, file))
    .sort();
  const sources: Record<string, { content: string }> = {};
  for (const file of files) {
    const unitName = path.relative(root, file).split(path.sep).join('/');
    sources[unitName] = { content: readFileSync(file, 'utf8') };
  }
  return sources;
}

/**
 * Compiles all contracts with the bundled solc-js and returns every deployable contract (not interfaces,
 * libraries or abstract contracts). Throws with the compiler's messages on any error.
 */
export function compileContracts(contractsDir = CONTRACTS_DIR): CompileResult {
  return compileSources(readContractSources(contractsDir));
}

const NODE_MODULES = path.join(REPO_ROOT, 'node_modules');

/**
 * solc's import callback: "@scope/pkg/…" imports are read from the installed npm package (the LayerZero OApp
 * bases and OpenZeppelin), so Solidity that builds on them compiles without copies of their sources. Read from
 * node_modules directly: the packages' "exports" maps do not list their .sol files.
 */
function findPackageImport(importPath: string): { contents: string } | { error: string } {
  const file = path.resolve(NODE_MODULES, importPath);
  if (!file.startsWith(`${NODE_MODULES}${path.sep}`))
    return { error: `import ${importPath} leaves node_modules` };
  try {
    return { contents: readFileSync(file, 'utf8') };
  } catch (err) {
    return { error: `cannot read ${importPath}: ${(err as Error).message}` };
  }
}

/**
 * Compiles the given source units (keyed by unit name), resolving package imports from node_modules, and
 * returns every deployable contract of the sources and their imports.
 */
export function compileSources(sources: Record<string, { content: string }>): CompileResult {
  const input = { language: 'Solidity', sources, settings: SOLC_SETTINGS };
  const sourceHash = createHash('sha256')
    .update(JSON.stringify({ compiler: solc.version(), input }))
    .digest('hex');

  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findPackageImport })) as SolcOutput;
  const messages = output.errors ?? [];
  const errors = messages.filter((m) => m.severity === 'error');
  if (errors.length > 0) {
    throw new ChainError(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }

  const contracts: CompiledContract[] = [];
  const seen = new Set<string>();
  for (const [sourcePath, unit] of Object.entries(output.sources ?? {})) {
    for (const node of unit.ast.nodes ?? []) {
      if (node.nodeType !== 'ContractDefinition' || node.contractKind !== 'contract' || node.abstract)
        continue;
      const name = node.name ?? '';
      const compiled = output.contracts?.[sourcePath]?.[name];
      if (!compiled) throw new ChainError(`solc produced no output for ${sourcePath}:${name}`);
      // Artifacts are stored by contract name alone, so names must be unique across the tree.
      if (seen.has(name)) throw new ChainError(`duplicate contract name ${name} (${sourcePath})`);
      seen.add(name);
      contracts.push({
        contractName: name,
        sourcePath,
        abi: compiled.abi,
        bytecode: `0x${compiled.evm.bytecode.object}`,
        sourceHash,
      });
    }
  }
  contracts.sort((a, b) => a.contractName.localeCompare(b.contractName));
  return {
    contracts,
    warnings: messages.filter((m) => m.severity !== 'error').map((m) => m.formattedMessage),
  };
}

/** The JSON document stored in src/chains/artifacts/<contractName>.json. */
export function artifactJson(contract: CompiledContract): string {
  const { contractName, abi, bytecode, sourceHash } = contract;
  return `${JSON.stringify({ contractName, abi, bytecode, sourceHash }, null, 2)}\n`;
}
