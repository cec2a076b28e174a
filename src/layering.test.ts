import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules, checked on the import statements of every file under src/:
 * - database drivers and Kysely (`kysely`, `pg`, `better-sqlite3`) are imported only in src/store;
 * - RPC clients are created only in src/chains: viem's client factories and transports (createPublicClient,
 *   createWalletClient, createTestClient, createClient, http, webSocket, fallback, custom) and `viem/actions`.
 *   Pure viem utilities and types (getAddress, keccak256, hashTypedData, privateKeyToAccount, `Hex`, …) are
 *   allowed anywhere: they do no I/O;
 * - the SDK entry (sdk/src/ferry-client.ts) reaches nothing outside the SDK's own folder through its relative imports.
 */
const SRC = path.dirname(new URL(import.meta.url).pathname);
const DATABASE_PACKAGES = ['kysely', 'pg', 'better-sqlite3'];
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

interface Import {
  readonly specifier: string;
  readonly names: readonly string[];
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Static imports and re-exports (with the names they bind), side-effect imports and dynamic imports. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const match of text.matchAll(
    /^\s*(?:import|export)\s+(?:type\s+)?([^;]*?)\s+from\s+['"]([^'"]+)['"]/gm,
  )) {
    const clause = match[1] ?? '';
    const braces = clause.match(/\{([^}]*)\}/)?.[1] ?? '';
    const names = braces
      .split(',')
      .map(
        (part) =>
          part
            .replace(/^\s*type\s+/, '')
            .split(/\s+as\s+/)[0]
            ?.trim() ?? '',
      )
      .filter(Boolean);
    found.push({ specifier: match[2] ?? '', names });
  }
  for (const match of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm))
    found.push({ specifier: match[1] ?? '', names: [] });
  for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    found.push({ specifier: match[1] ?? '', names: [] });
  }
  return found;
}

const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? '');
const relative = (file: string) => path.relative(SRC, file);
const files = sourceFiles(SRC).filter((file) => file !== new URL(import.meta.url).pathname);

describe('layering', () => {
  it('finds the imports it checks (the parser works)', () => {
    const database = importsOf(path.join(SRC, 'store', 'database.ts')).map((i) => i.specifier);
    expect(database).toEqual(expect.arrayContaining(['kysely', 'pg', 'better-sqlite3']));
    const clients = importsOf(path.join(SRC, 'chains', 'viem-client.ts'));
    expect(clients.find((i) => i.specifier === 'viem')?.names).toContain('createPublicClient');
  });

  it('imports database drivers and Kysely only in src/store', () => {
    const violations = files.flatMap((file) =>
      relative(file).startsWith(`store${path.sep}`)
        ? []
        : importsOf(file)
            .filter((i) => DATABASE_PACKAGES.includes(packageOf(i.specifier)))
            .map((i) => `${relative(file)} imports ${i.specifier}`),
    );
    expect(violations).toEqual([]);
  });

  it('creates RPC clients only in src/chains', () => {
    const violations = files.flatMap((file) =>
      relative(file).startsWith(`chains${path.sep}`)
        ? []
        : importsOf(file).flatMap((i) => {
            if (i.specifier === 'viem/actions') return [`${relative(file)} imports viem/actions`];
            if (i.specifier !== 'viem') return [];
            return i.names
              .filter((name) => RPC_CLIENT_NAMES.includes(name))
              .map((name) => `${relative(file)} imports ${name} from viem`);
          }),
    );
    expect(violations).toEqual([]);
  });

  it('the SDK entry reaches no server code', () => {
    const sdk = path.join(SRC, '..', 'sdk', 'src');
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const { specifier } of importsOf(file)) {
        // The SDK's sources import each other as `.js`, the file the build emits.
        if (specifier.startsWith('.'))
          visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      }
    };
    visit(path.join(sdk, 'ferry-client.ts'));
    expect(reached.size).toBeGreaterThan(1);
    const outside = [...reached].filter((file) => !file.startsWith(`${sdk}${path.sep}`));
    expect(outside).toEqual([]);
  });
});
