import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, compileContracts } from '../devnet/solc-compile.ts';
import { CONTRACT_NAMES, loadArtifact } from './contract-artifacts.ts';

describe('committed contract artifacts', () => {
  // Recompiling proves the JSON checked into src/chains/artifacts was built from the current sources;
  // if this fails, run `npx tsx scripts/compile-contracts.ts`.
  const { contracts } = compileContracts();

  it('cover exactly the deployable contracts in contracts/', () => {
    expect(contracts.map((c) => c.contractName)).toEqual([...CONTRACT_NAMES]);
    const files = readdirSync(ARTIFACTS_DIR).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(CONTRACT_NAMES.map((n) => `${n}.json`));
  });

  it.each(contracts.map((c) => [c.contractName, c] as const))(
    '%s matches a fresh compilation',
    (name, fresh) => {
      const committed = loadArtifact(name as (typeof CONTRACT_NAMES)[number]);
      expect(committed.abi).toEqual(fresh.abi);
      expect(committed.bytecode).toBe(fresh.bytecode);
      expect(committed.sourceHash).toBe(fresh.sourceHash);
    },
  );
});
