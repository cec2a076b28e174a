import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reachableFrom, readImportGraph } from '../test/support/import-graph.ts';
import {
  type Crossings,
  cycles,
  databaseOutsideStore,
  devnetInProduction,
  EXPLORER,
  explorerLeaks,
  impureDomain,
  isTest,
  ladderBreaks,
  metricsNotALeaf,
  rpcOutsideChains,
  SDK,
  SDK_ENTRY,
  type SubfolderBans,
  sdkLeaks,
  subfolderBreaks,
} from '../test/support/layering-rules.ts';

/**
 * Ferry's boundaries, checked on every import of src/ (the explorer's JavaScript included) and sdk/src, parsed by
 * the TypeScript compiler. Every rule counts type-only imports (`import type`, braces of `type` names only) too:
 * erased before anything runs, they still tie a file to the one it names. Where a rule allows an import only as a
 * type, it says so. Each rule is a function over an import graph: the `describe('… catches …')` block runs
 * it on a small made-up graph that breaks it (src/layering-rules.test.ts), so a rule that stops catching anything
 * fails the suite too. The rules are in test/support/layering-rules.ts; Ferry's layout is declared here.
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
  ['events', 'deploy'], // the event log's fanout to SSE and WebSocket streams; `ferry deploy` on real chains
  ['services', 'settlement', 'lp', 'webhooks'], // API use cases, the settlement worker, the LP bot, webhook dispatch
  ['http'], // Fastify routes over the services (handed in), events and store
  ['app.ts'], // wiring: the API and worker processes
  ['devnet'], // local anvil chains: above everything production runs, so none of it can import them
  ['demo'], // a scripted swap against a started app
  ['cli'], // the `ferry` binary
];
/**
 * The only types a folder may import from beside or above its rung: ports it implements and a higher rung hands
 * in. The store's ledger tables implement the transaction ledger src/chains declares (src/app.ts joins the two).
 */
const TYPE_CROSSINGS: Crossings = { store: ['src/chains/transactions/tx-ledger.ts'] };
/** Where RPC clients are made: production's src/chains, and src/devnet for anvil's own test clients. */
const RPC_FOLDERS = ['src/chains/', 'src/devnet/'];
/** The commands that start devnets (src/cli, src/demo) and the devnets themselves; nothing production runs. */
const DEVNET_USERS = ['src/devnet/', 'src/demo/', 'src/cli/'];
/**
 * Inside a folder split by purpose, the lower parts do not reach up: the store's engine knows no table or ledger
 * and the tables no ledger, the transaction client knows no settlement call, LayerZero's production pieces know
 * neither.
 */
const SUBFOLDER_BANS: SubfolderBans = [
  ['src/store/engine/', ['src/store/tables/', 'src/store/ledgers/']],
  ['src/store/tables/', ['src/store/ledgers/']],
  ['src/chains/transactions/', ['src/chains/settlement/', 'src/chains/layerzero/']],
  ['src/chains/layerzero/', ['src/chains/settlement/', 'src/chains/transactions/']],
];

describe('layering', () => {
  const graph = readImportGraph(ROOT, ['src', 'sdk/src']);
  const sdkPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'sdk', 'package.json'), 'utf8'));
  const sdkDeclared = Object.keys({ ...sdkPackage.dependencies, ...sdkPackage.peerDependencies });

  it('finds the imports it checks (the parser works)', () => {
    const database = graph.get('src/store/engine/database.ts')?.map((i) => i.specifier);
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
    expect(rpcOutsideChains(graph, RPC_FOLDERS)).toEqual([]);
  });

  it('keeps devnet code out of production, even as types', () => {
    expect(devnetInProduction(graph, DEVNET_USERS)).toEqual([]);
  });

  it('keeps the lower parts of a split folder from reaching up', () => {
    expect(subfolderBreaks(graph, SUBFOLDER_BANS)).toEqual([]);
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
