import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import (or re-export) of a source file, as src/layering.test.ts reads it. */
export interface Import {
  /** The module specifier as written: `viem`, `node:fs`, `../store/engine/database.ts`. */
  readonly specifier: string;
  /** For a relative specifier: the file it names, relative to the repository with `/`. Undefined for a package. */
  readonly target?: string;
  /** The names it binds in braces (the exported names, before any `as`). */
  readonly names: readonly string[];
  /**
   * Erased by the compiler: `import type`, `export type`, braces holding only `type` names, `import('…')` in a type.
   * Everything else (static, side-effect and dynamic imports, `export … from`) runs.
   */
  readonly typeOnly: boolean;
}

/** Each source file (relative to the repository, with `/`) and its imports. */
export type ImportGraph = ReadonlyMap<string, readonly Import[]>;

const SOURCE = /\.(ts|js|mjs)$/;

/** The imports written in one file's text, parsed by the TypeScript compiler (no regex guesses). */
export function parseImports(fileName: string, text: string): Omit<Import, 'target'>[] {
  const kind = fileName.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const found: Omit<Import, 'target'>[] = [];
  const named = (elements: readonly (ts.ImportSpecifier | ts.ExportSpecifier)[], wholeIsType: boolean) => ({
    names: elements.map((e) => (e.propertyName ?? e.name).text),
    typeOnly: wholeIsType || (elements.length > 0 && elements.every((e) => e.isTypeOnly)),
  });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const elements = bindings && ts.isNamedImports(bindings) ? bindings.elements : [];
      const parts = named(elements, clause?.isTypeOnly ?? false);
      // A default or namespace binding beside `type` names still loads the module.
      const typeOnly = clause !== undefined && parts.typeOnly && (clause.isTypeOnly || !clause.name);
      found.push({ specifier: node.moduleSpecifier.text, names: parts.names, typeOnly });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const elements = clause && ts.isNamedExports(clause) ? clause.elements : [];
      found.push({ specifier: node.moduleSpecifier.text, ...named(elements, node.isTypeOnly) });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, names: [], typeOnly: false });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, names: [], typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The file a relative specifier names. TypeScript sources may name a sibling `.ts` file by its `.js` output
 * (the SDK does, so its files compile unchanged into the package).
 */
function resolve(root: string, from: string, specifier: string): string {
  const target = path.posix.join(path.posix.dirname(from), specifier);
  if (!fs.existsSync(path.join(root, target)) && target.endsWith('.js')) {
    const source = target.replace(/\.js$/, '.ts');
    if (fs.existsSync(path.join(root, source))) return source;
  }
  return target;
}

function sourceFiles(root: string, dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, file);
    return SOURCE.test(entry.name) ? [file] : [];
  });
}

/** The imports of every .ts and .js file under `dirs` (relative to `root`), with relative ones resolved. */
export function readImportGraph(root: string, dirs: readonly string[]): ImportGraph {
  const graph = new Map<string, Import[]>();
  for (const file of dirs.flatMap((dir) => sourceFiles(root, dir))) {
    const parsed = parseImports(file, fs.readFileSync(path.join(root, file), 'utf8'));
    graph.set(
      file,
      parsed.map((i) =>
        i.specifier.startsWith('.') ? { ...i, target: resolve(root, file, i.specifier) } : i,
      ),
    );
  }
  return graph;
}

/** The package a bare specifier names: `viem/accounts` → `viem`, `@fastify/websocket/x` → `@fastify/websocket`. */
export const packageOf = (specifier: string): string =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? '');

/**
 * The import cycles among the files, over every import, type-only ones included: erased, they cannot make a module
 * wait on itself, yet two files that name each other's types still cannot be read, moved or layered apart. A
 * depth-first search that reports, for each edge back into the current path, the files of that loop in import
 * order, the first one repeated at the end.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const trail: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): void => {
    trail.push(file);
    onPath.add(file);
    for (const { target } of graph.get(file) ?? []) {
      if (target === undefined || done.has(target)) continue;
      if (onPath.has(target)) cycles.push([...trail.slice(trail.indexOf(target)), target]);
      else visit(target);
    }
    trail.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) visit(file);
  return cycles;
}

/** Every file reachable from `entry` through any import, type-only ones included. */
export function reachableFrom(graph: ImportGraph, entry: string): Set<string> {
  const reached = new Set<string>();
  const visit = (file: string): void => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const { target } of graph.get(file) ?? []) if (target !== undefined) visit(target);
  };
  visit(entry);
  return reached;
}

/**
 * A made-up graph for the layering rules' self-tests: `from` → imports, each `'x'` a runtime import of file x,
 * `type:x` a type-only one, `pkg:p` a package.
 */
export function madeUpGraph(edges: Record<string, readonly (string | Import)[]>): ImportGraph {
  const parse = (spec: string | Import): Import => {
    if (typeof spec !== 'string') return spec;
    if (spec.startsWith('pkg:')) return { specifier: spec.slice(4), names: [], typeOnly: false };
    const typeOnly = spec.startsWith('type:');
    const target = spec.replace(/^type:/, '');
    return { specifier: `./${target}`, target, names: [], typeOnly };
  };
  return new Map(Object.entries(edges).map(([file, specs]) => [file, specs.map(parse)]));
}
