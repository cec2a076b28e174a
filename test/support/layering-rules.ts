import path from 'node:path';
import { findCycles, type Import, type ImportGraph, packageOf } from './import-graph.ts';

/**
 * The rules src/layering.test.ts checks Ferry's import graph against, each a function over a graph so that
 * src/layering-rules.test.ts can run it on a made-up graph that breaks it. Where a rule depends on Ferry's
 * layout (the ladder, the allowed crossings), the layout is a parameter declared in src/layering.test.ts.
 */
/** Per folder, the files it may name as types from beside or above its rung. */
export type Crossings = Readonly<Record<string, readonly string[]>>;
export const EXPLORER = 'src/explorer/';
export const SDK = 'sdk/src/';
export const SDK_ENTRY = 'sdk/src/index.ts';
export const DATABASE_PACKAGES = ['kysely', 'pg', 'better-sqlite3'];
/** viem's client factories and transports; pure utilities (getAddress, keccak256, privateKeyToAccount…) do no I/O. */
export const RPC_CLIENT_NAMES = [
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
export const IO_BUILTINS = [
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
export const IO_PACKAGES = [...DATABASE_PACKAGES, 'ioredis', 'fastify', 'ws', 'pino', 'openapi-fetch'];

export const isTest = (file: string) => file.endsWith('.test.ts');
/** Tests wire real parts together (a chains test writes through the store), so the structure rules skip them. */
export const production = (graph: ImportGraph) => [...graph].filter(([file]) => !isTest(file));
/** `src/<folder>/…` → the folder; a file at src's root is its own unit (`app.ts`). */
export const unitOf = (file: string) => (file.startsWith('src/') ? file.split('/')[1] : undefined);
export const says = (file: string, i: Import, why: string) =>
  `${file} imports ${i.target ?? i.specifier}: ${why}`;

export function rpcClientImports(i: Import): string[] {
  if (i.specifier === 'viem/actions') return ['viem/actions'];
  return i.specifier === 'viem' ? i.names.filter((name) => RPC_CLIENT_NAMES.includes(name)) : [];
}

export function databaseOutsideStore(graph: ImportGraph): string[] {
  return [...graph].flatMap(([file, imports]) =>
    file.startsWith('src/store/')
      ? []
      : imports
          .filter((i) => DATABASE_PACKAGES.includes(packageOf(i.specifier)))
          .map((i) => says(file, i, 'database drivers live in src/store')),
  );
}

export function rpcOutsideChains(graph: ImportGraph, folders: readonly string[] = ['src/chains/']): string[] {
  return [...graph].flatMap(([file, imports]) =>
    folders.some((folder) => file.startsWith(folder))
      ? []
      : imports.flatMap((i) =>
          rpcClientImports(i).map((name) => `${file} imports ${name}: RPC clients are made in src/chains`),
        ),
  );
}

/** Production files outside `users` that name a file of `folder`, even as a type. Tests may: they start devnets. */
export function devnetInProduction(
  graph: ImportGraph,
  users: readonly string[],
  folder = 'src/devnet/',
): string[] {
  return production(graph).flatMap(([file, imports]) =>
    !file.startsWith('src/') || users.some((user) => file.startsWith(user))
      ? []
      : imports
          .filter((i) => i.target?.startsWith(folder))
          .map((i) => says(file, i, `production code never imports ${folder.slice(0, -1)}`)),
  );
}

/** Per lower part of a split folder, the parts above it that it must not name, even as a type. */
export type SubfolderBans = readonly (readonly [string, readonly string[]])[];

export function subfolderBreaks(graph: ImportGraph, bans: SubfolderBans): string[] {
  return production(graph).flatMap(([file, imports]) =>
    bans
      .filter(([folder]) => file.startsWith(folder))
      .flatMap(([folder, banned]) =>
        imports
          .filter((i) => banned.some((b) => i.target?.startsWith(b)))
          .map((i) => says(file, i, `${folder} sits below it`)),
      ),
  );
}

/** src/domain (its tests too) names no other part of Ferry, even as a type, and does no I/O. */
export function impureDomain(graph: ImportGraph): string[] {
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

export function ladderBreaks(
  graph: ImportGraph,
  ladder: readonly (readonly string[])[],
  crossings: Crossings,
) {
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
export function metricsNotALeaf(graph: ImportGraph): string[] {
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
export function cycles(graph: ImportGraph): string[] {
  return findCycles(new Map(production(graph))).map((files) => `import cycle: ${files.join(' -> ')}`);
}

/**
 * The SDK is its own package: its files import only each other and the packages sdk/package.json declares, and
 * the rest of Ferry uses it only through its entry, as an integrator does.
 */
export function sdkLeaks(graph: ImportGraph, declared: readonly string[]): string[] {
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
export function explorerLeaks(graph: ImportGraph): string[] {
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
