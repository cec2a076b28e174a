import { describe, expect, it } from 'vitest';
import { type Import, madeUpGraph as made, parseImports } from '../test/support/import-graph.ts';
import {
  cycles,
  databaseOutsideStore,
  devnetInProduction,
  explorerLeaks,
  impureDomain,
  ladderBreaks,
  metricsNotALeaf,
  rpcOutsideChains,
  SDK_ENTRY,
  sdkLeaks,
  subfolderBreaks,
} from '../test/support/layering-rules.ts';

/** Each rule of src/layering.test.ts run on a small made-up graph that breaks it: a rule that stops catching fails. */
describe('each layering rule catches a violation', () => {
  it('production code naming devnet code, as a type too', () => {
    const graph = made({
      'src/cli/x.ts': ['src/devnet/d.ts'],
      'src/demo/y.ts': ['type:src/devnet/d.ts'],
      'src/deploy/z.ts': ['type:src/devnet/d.ts'],
      'src/lp/w.test.ts': ['src/devnet/d.ts'],
    });
    expect(devnetInProduction(graph, ['src/devnet/', 'src/demo/', 'src/cli/'])).toEqual([
      'src/deploy/z.ts imports src/devnet/d.ts: production code never imports src/devnet',
    ]);
  });

  it('a lower part of a split folder reaching up, as a type too', () => {
    const graph = made({
      'src/store/tables/t.ts': ['src/store/engine/e.ts'],
      'src/store/engine/e.ts': ['type:src/store/ledgers/l.ts'],
    });
    const bans = [['src/store/engine/', ['src/store/tables/', 'src/store/ledgers/']]] as const;
    expect(subfolderBreaks(graph, bans)).toEqual([
      'src/store/engine/e.ts imports src/store/ledgers/l.ts: src/store/engine/ sits below it',
    ]);
  });

  it('the parser tells type-only imports from the ones that run', () => {
    const text = `import a from './a.ts';
      import type { B } from './b.ts';
      import { type C, type D } from './c.ts';
      import { type E, f } from './e.ts';
      import G, { type H } from './g.ts';
      import './side-effect.ts';
      export { i as j } from './i.ts';
      export type { K } from './k.ts';
      export * from './l.ts';
      type M = import('./m.ts').M;
      const n = await import('./n.ts');`;
    const parsed = parseImports('x.ts', text).map((i) => [i.specifier, i.typeOnly]);
    expect(Object.fromEntries(parsed)).toEqual({
      './a.ts': false,
      './b.ts': true,
      './c.ts': true,
      './e.ts': false,
      './g.ts': false,
      './side-effect.ts': false,
      './i.ts': false,
      './k.ts': true,
      './l.ts': false,
      './m.ts': true,
      './n.ts': false,
    });
    expect(parseImports('x.ts', text).find((i) => i.specifier === './i.ts')?.names).toEqual(['i']);
  });

  it('database drivers outside src/store', () => {
    expect(databaseOutsideStore(made({ 'src/store/engine/database.ts': ['pkg:pg'] }))).toEqual([]);
    expect(databaseOutsideStore(made({ 'src/services/x.ts': ['pkg:kysely'] }))).toHaveLength(1);
  });

  it('RPC clients outside src/chains', () => {
    const client: Import = {
      specifier: 'viem',
      names: ['getAddress', 'createWalletClient'],
      typeOnly: false,
    };
    expect(rpcOutsideChains(made({ 'src/chains/viem-client.ts': [client] }))).toEqual([]);
    expect(rpcOutsideChains(made({ 'src/lp/x.ts': [client, 'pkg:viem/actions'] }))).toHaveLength(2);
  });

  it('an impure domain', () => {
    expect(impureDomain(made({ 'src/domain/a.ts': ['src/domain/b.ts', 'pkg:node:crypto'] }))).toEqual([]);
    const impure = made({
      'src/domain/a.ts': [
        'type:src/store/engine/database.ts',
        'pkg:node:fs/promises',
        'pkg:ioredis',
        'pkg:@fastify/x',
      ],
    });
    expect(impureDomain(impure)).toHaveLength(4);
  });

  it('an import up the ladder, across a rung, or from a folder not on it, types included', () => {
    const ladder = [['domain'], ['store', 'chains'], ['http']];
    const crossings = { store: ['src/chains/port.ts'] };
    const fine = made({
      'src/http/a.ts': ['src/store/b.ts', 'type:src/domain/c.ts'],
      'src/store/b.ts': ['type:src/chains/port.ts'],
    });
    expect(ladderBreaks(fine, ladder, crossings)).toEqual([]);
    // Up the ladder (at run time, as a type), then across a rung (the crossing is for one file's types only).
    const up = ['src/http/a.ts', 'type:src/http/a.ts', 'src/chains/port.ts', 'type:src/chains/a.ts'];
    expect(ladderBreaks(made({ 'src/store/b.ts': up }), ladder, crossings)).toHaveLength(4);
    expect(ladderBreaks(made({ 'src/extra/b.ts': [] }), ladder, crossings)).toHaveLength(1);
  });

  it('metrics importing more than the domain and config types', () => {
    const leaf = made({ 'src/metrics/m.ts': ['src/domain/a.ts', 'type:src/config/config.ts'] });
    expect(metricsNotALeaf(leaf)).toEqual([]);
    const reaching = made({
      'src/metrics/m.ts': ['src/config/config.ts', 'type:src/store/engine/database.ts'],
    });
    expect(metricsNotALeaf(reaching)).toHaveLength(2);
  });

  it('an import cycle, type-only imports included, named by its files', () => {
    const shared = made({ 'a.ts': ['b.ts', 'type:c.ts'], 'b.ts': ['type:c.ts'], 'c.ts': [] });
    expect(cycles(shared)).toEqual([]);
    expect(cycles(made({ 'a.test.ts': ['a.ts'], 'a.ts': ['a.test.ts'] }))).toEqual([]);
    const typeBack = made({ 'a.ts': ['b.ts'], 'b.ts': ['type:a.ts'] });
    expect(cycles(typeBack)).toEqual(['import cycle: a.ts -> b.ts -> a.ts']);
    expect(cycles(made({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts'] }))).toEqual([
      'import cycle: a.ts -> b.ts -> c.ts -> a.ts',
    ]);
  });

  it('an SDK reaching outside itself, or used past its entry', () => {
    const fine = made({ [SDK_ENTRY]: ['sdk/src/a.ts', 'pkg:viem/siwe'], 'src/lp/x.ts': [SDK_ENTRY] });
    expect(sdkLeaks(fine, ['viem'])).toEqual([]);
    const leaking = made({
      'sdk/src/a.ts': ['type:src/domain/ids.ts', 'pkg:pino'],
      'src/lp/x.ts': ['type:sdk/src/a.ts'],
    });
    expect(sdkLeaks(leaking, ['viem'])).toHaveLength(3);
  });

  it('an explorer module reaching past the served folder, or imported by the server', () => {
    const fine = made({ 'src/explorer/a.js': ['src/explorer/b.js', 'type:sdk/src/index.ts'] });
    expect(explorerLeaks(fine)).toEqual([]);
    const leaking = made({
      'src/explorer/a.js': ['src/domain/amount.ts', 'sdk/src/index.ts', 'pkg:viem'],
      'src/http/x.ts': ['src/explorer/a.js'],
    });
    expect(explorerLeaks(leaking)).toHaveLength(4);
  });
});
