import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  findCycles,
  type Import,
  type ImportGraph,
  madeUpGraph as made,
  packageOf,
  parseImports,
  reachableFrom,
  readImportGraph,
} from '../test/support/import-graph.ts';

/**
 * Ferry's boundaries, checked on every import of src/ (the explorer's JavaScript included) and sdk/src, parsed by
 * the TypeScript compiler. Every rule counts type-only imports (`import type`, braces of `type` names only) too:
 * erased before anything runs, they still tie a file to the one it names. Where a rule allows an import only as a
 * type, it says so. Each rule is a function over an import graph: the `describe('… catches …')` block below runs
 * it on a small made-up graph that breaks it, so a rule that stops catching anything fails the suite too.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The top folders of src (and src/app.ts), bottom first. A file imports only from its own folder or a lower
 * rung, types included (save TYPE_CROSSINGS); folders sharing a rung do not import each other. The order is
 * the one the code follows: pure rules, then process plumbing and config, the metrics every layer records
 * into, the two ways out (SQL, RPC), the event fanout over the store, what Ferry does (API use cases,
 * settlement worker, LP bot), the routes that expose it, the wiring, and the commands that start it.
 * src/explorer is browser code with a rule of its own.
 */
const LADDER: readonly (readonly string[])[] = [
  ['domain'], // orders, quotes, amounts, EIP-712: pure, below everything
  ['process'], // logger, periodic jobs, shutdown: plumbing any process uses
  ['config'], // the environment, read once into typed config
  ['metrics'], // Prometheus counters; a leaf (its own rule below)
  ['store', 'chains'], // SQL and RPC, the two ways out; neither needs the other at run time
  ['events'], // the event log's fanout to SSE and WebSocket streams
  ['services', 'settlement', 'lp', 'webhooks'], // API use cases, the settlement worker, the LP bot, webhook dispatch
  ['http'], // Fastify routes over the services (handed in), events and store
  ['app.ts'], // wiring: the API and worker processes
  ['demo'], // a scripted swap against a started app
  ['cli'], // the `ferry` binary
];
/**
 * The only types a folder may import from beside or above its rung: ports it implements and a higher rung hands
 * in. The store's ledger tables implement the transaction ledger src/chains declares (src/app.ts joins the two).
 */
type Crossings = Readonly<Record<string, readonly string[]>>;
const TYPE_CROSSINGS: Crossings = { store: ['src/chains/tx-ledger.ts'] };
const EXPLORER = 'src/explorer/';
const SDK = 'sdk/src/';
const SDK_ENTRY = 'sdk/src/index.ts';
const DATABASE_PACKAGES = ['kysely', 'pg', 'better-sqlite3'];
/** viem's client factories and transports; pure utilities (getAddress, keccak256, privateKeyToAccount…) do no I/O. */
const RPC_CLIENT_NAMES = [
  'createPublicClient',
  'createWalletClient',
  'createTestClient',
  'createClient',
  'http',
  'webSocket',
  'fallback',
  'custom',
];
/** Node built-ins that reach disks, sockets or processes (crypto, url, util… compute only). */
const IO_BUILTINS = [
  'fs',
  'net',
  'http',
  'https',
  'http2',
  'child_process',
  'dgram',
  'dns',
  'tls',
  'cluster',
];
const IO_PACKAGES = [...DATABASE_PACKAGES, 'ioredis', 'fastify', 'ws', 'pino', 'openapi-fetch'];

const isTest = (file: string) => file.endsWith('.test.ts');
/** Tests wire real parts together (a chains test writes through the store), so the structure rules skip them. */
const production = (graph: ImportGraph) => [...graph].filter(([file]) => !isTest(file));
/** `src/<folder>/…` → the folder; a file at src's root is its own unit (`app.ts`). */
const unitOf = (file: string) => (file.startsWith('src/') ? file.split('/')[1] : undefined);
const says = (file: string, i: Import, why: string) => `${file} imports ${i.target ?? i.specifier}: ${why}`;

function rpcClientImports(i: Import): string[] {
  if (i.specifier === 'viem/actions') return ['viem/actions'];
  return i.specifier === 'viem' ? i.names.filter((name) => RPC_CLIENT_NAMES.includes(name)) : [];
}

function databaseOutsideStore(graph: ImportGraph): string[] {
  return [...graph].flatMap(([file, imports]) =>
    file.startsWith('src/store/')
      ? []
      : imports
          .filter((i) => DATABASE_PACKAGES.includes(packageOf(i.specifier)))
          .map((i) => says(file, i, 'database drivers live in src/store')),
  );
}

function rpcOutsideChains(graph: ImportGraph): string[] {
  return [...graph].flatMap(([file, imports]) =>
    file.startsWith('src/chains/')
      ? []
      : imports.flatMap((i) =>
          rpcClientImports(i).map((name) => `${file} imports ${name}: RPC clients are made in src/chains`),
        ),
  );
}

/** src/domain (its tests too) names no other part of Ferry, even as a type, and does no I/O. */
function impureDomain(graph: ImportGraph): string[] {
  return [...graph].flatMap(([file, imports]) => {
    if (!file.startsWith('src/domain/')) return [];
    return imports.flatMap((i) => {
      if (i.target !== undefined) {
        return i.target.startsWith('src/domain/') ? [] : [says(file, i, 'the domain is the bottom rung')];
      }
      const builtin = i.specifier.replace(/^node:/, '').split('/')[0] ?? '';
      const io =
        IO_BUILTINS.includes(builtin) ||
        IO_PACKAGES.includes(packageOf(i.specifier)) ||
        packageOf(i.specifier).startsWith('@fastify/') ||
        rpcClientImports(i).length > 0;
      return io ? [says(file, i, 'the domain does no I/O')] : [];
    });
  });
}

function ladderBreaks(graph: ImportGraph, ladder: readonly (readonly string[])[], crossings: Crossings) {
  const rung = new Map(ladder.flatMap((units, index) => units.map((unit) => [unit, index] as const)));
  return production(graph).flatMap(([file, imports]) => {
    const from = unitOf(file);
    if (from === undefined || file.startsWith(EXPLORER)) return [];
    const own = rung.get(from);
    if (own === undefined) return [`src/${from} is not on the ladder (declare it in src/layering.test.ts)`];
    return imports.flatMap((i) => {
      const to = i.target === undefined ? undefined : unitOf(i.target);
      if (to === undefined || to === from) return [];
      const theirs = rung.get(to);
      if (theirs === undefined) return [says(file, i, `src/${to} is not on the ladder`)];
      if (theirs < own) return [];
      if (i.typeOnly && crossings[from]?.includes(i.target ?? '')) return [];
      return [says(file, i, `${to} is not below ${from} on the ladder (types count too)`)];
    });
  });
}

/** src/metrics is a leaf every layer records into: it knows only the domain and (as types) config. */
function metricsNotALeaf(graph: ImportGraph): string[] {
  return production(graph).flatMap(([file, imports]) =>
    file.startsWith('src/metrics/')
      ? imports
          .filter((i) => i.target !== undefined)
          .filter((i) => {
            const to = unitOf(i.target ?? '');
            return !(to === 'metrics' || to === 'domain' || (to === 'config' && i.typeOnly));
          })
          .map((i) => says(file, i, 'metrics imports only the domain and config types'))
      : [],
  );
}

/** Among production files, types included: a type two files need lives in the lower one or in a file below both. */
function cycles(graph: ImportGraph): string[] {
  return findCycles(new Map(production(graph))).map((files) => `import cycle: ${files.join(' -> ')}`);
}

/**
 * The SDK is its own package: its files import only each other and the packages sdk/package.json declares, and
 * the rest of Ferry uses it only through its entry, as an integrator does.
 */
function sdkLeaks(graph: ImportGraph, declared: readonly string[]): string[] {
  return [...graph].flatMap(([file, imports]) => {
    if (!file.startsWith(SDK)) {
      return imports
        .filter((i) => i.target?.startsWith(SDK) && i.target !== SDK_ENTRY)
        .map((i) => says(file, i, `the SDK is used through its entry, ${SDK_ENTRY}`));
    }
    if (isTest(file)) return [];
    return imports.flatMap((i) => {
      if (i.target !== undefined) return i.target.startsWith(SDK) ? [] : [says(file, i, 'outside the SDK')];
      return declared.includes(packageOf(i.specifier))
        ? []
        : [says(file, i, 'not a dependency in sdk/package.json')];
    });
  });
}

/**
 * The explorer's modules run in the browser, which gets only src/explorer's own files (the static route in
 * src/http/routes/explorer-routes.ts serves that one folder, no bundler, no import map): they import each other
 * and, as types only, the SDK. No server file imports them.
 */
function explorerLeaks(graph: ImportGraph): string[] {
  return [...graph].flatMap(([file, imports]) => {
    if (!file.startsWith(EXPLORER)) {
      return imports
        .filter((i) => i.target?.startsWith(EXPLORER))
        .map((i) => says(file, i, 'the explorer is browser code'));
    }
    return imports.flatMap((i) => {
      const served = i.target !== undefined && path.posix.dirname(i.target) === EXPLORER.slice(0, -1);
      if (served || (i.typeOnly && i.target?.startsWith(SDK))) return [];
      return [says(file, i, 'the browser gets only src/explorer')];
    });
  });
}

describe('layering', () => {
  const graph = readImportGraph(ROOT, ['src', 'sdk/src']);
  const sdkPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'sdk', 'package.json'), 'utf8'));
  const sdkDeclared = Object.keys({ ...sdkPackage.dependencies, ...sdkPackage.peerDependencies });

  it('finds the imports it checks (the parser works)', () => {
    const database = graph.get('src/store/database.ts')?.map((i) => i.specifier);
    expect(database).toEqual(expect.arrayContaining(['kysely', 'pg', 'better-sqlite3']));
    const clients = graph.get('src/chains/viem-client.ts');
    expect(clients?.find((i) => i.specifier === 'viem')?.names).toContain('createPublicClient');
    expect(graph.get('src/explorer/app.js')?.map((i) => i.target)).toContain('src/explorer/dom.js');
    // `.js` specifiers of the SDK name its `.ts` sources.
    expect(graph.get(SDK_ENTRY)?.map((i) => i.target)).toContain('sdk/src/ferry-client.ts');
  });

  it('imports database drivers and Kysely only in src/store', () => {
    expect(databaseOutsideStore(graph)).toEqual([]);
  });

  it('creates RPC clients only in src/chains', () => {
    expect(rpcOutsideChains(graph)).toEqual([]);
  });

  it('keeps src/domain pure: no other part of Ferry, no I/O', () => {
    expect(impureDomain(graph)).toEqual([]);
  });

  it('imports only down the ladder of src folders', () => {
    expect(ladderBreaks(graph, LADDER, TYPE_CROSSINGS)).toEqual([]);
  });

  it('keeps src/metrics a leaf', () => {
    expect(metricsNotALeaf(graph)).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('keeps the SDK a package of its own, used through its entry', () => {
    expect(sdkLeaks(graph, sdkDeclared)).toEqual([]);
    expect(sdkPackage.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
  });

  it('the SDK entry reaches no server code, and reaches every SDK module', () => {
    const reached = reachableFrom(graph, SDK_ENTRY);
    expect([...reached].filter((file) => !file.startsWith(SDK))).toEqual([]);
    const modules = [...graph.keys()].filter((file) => file.startsWith(SDK) && !isTest(file));
    expect(modules.filter((file) => !reached.has(file))).toEqual([]);
  });

  it('keeps the explorer to the files the browser is served', () => {
    expect(explorerLeaks(graph)).toEqual([]);
  });

  it('declares each src folder on the ladder once, and every top folder says in a README what it may import', () => {
    const folders = fs
      .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const declared = LADDER.flat();
    expect(new Set(declared).size).toBe(declared.length);
    expect(declared.filter((unit) => !unit.endsWith('.ts')).sort()).toEqual(
      folders.filter((folder) => `src/${folder}/` !== EXPLORER).sort(),
    );
    const tops = [
      ...folders.map((folder) => `src/${folder}`),
      'sdk',
      'test',
      'scripts',
      'bench',
      'contracts',
      'docs',
    ];
    expect(tops.filter((dir) => !fs.existsSync(path.join(ROOT, dir, 'README.md')))).toEqual([]);
  });
});

describe('each layering rule catches a violation', () => {
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
    expect(databaseOutsideStore(made({ 'src/store/database.ts': ['pkg:pg'] }))).toEqual([]);
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
        'type:src/store/database.ts',
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
    const reaching = made({ 'src/metrics/m.ts': ['src/config/config.ts', 'type:src/store/database.ts'] });
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
