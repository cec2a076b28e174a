// Compiles contracts/**/*.sol with solc-js and writes src/chains/artifacts/<ContractName>.json.
// Usage: npx tsx scripts/compile-contracts.ts
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS_DIR, artifactJson, compileContracts } from '../src/devnet/solc-compile.ts';

const { contracts, warnings } = compileContracts();
for (const warning of warnings) console.warn(warning);

mkdirSync(ARTIFACTS_DIR, { recursive: true });
// Drop artifacts of contracts that no longer exist so the directory mirrors the sources exactly.
const current = new Set(contracts.map((c) => `${c.contractName}.json`));
for (const file of readdirSync(ARTIFACTS_DIR)) {
  if (file.endsWith('.json') && !current.has(file)) rmSync(path.join(ARTIFACTS_DIR, file));
}
for (const contract of contracts) {
  writeFileSync(path.join(ARTIFACTS_DIR, `${contract.contractName}.json`), artifactJson(contract));
  console.log(
    `${contract.contractName}: ${(contract.bytecode.length - 2) / 2} bytes (${contract.sourcePath})`,
  );
}
console.log(
  `sourceHash ${contracts[0]?.sourceHash ?? '-'} -> ${path.relative(process.cwd(), ARTIFACTS_DIR)}`,
);
