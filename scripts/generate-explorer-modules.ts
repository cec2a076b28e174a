/**
 * Compiles the domain modules the explorer shares with the API to plain ES modules in `src/explorer/`, so the
 * explorer, which the browser loads with no build step, runs the API's own rules instead of copies of them:
 *
 * - src/domain/order-search-shape.ts → order-search-shape.js: how a public search text is told apart;
 * - src/domain/lifecycle.ts → lifecycle.js: the status sets and their order (terminal statuses, ranks);
 * - src/domain/open-filler.ts → open-filler.js: the zero address as "open to any filler".
 *
 *   npm run generate:explorer
 *
 * Their declarations go beside them (.d.ts) for the explorer's type check. test/explorer-search-shape.test.ts
 * compiles them again in memory and fails when a committed file differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const domain = (name: string) => fileURLToPath(new URL(`../src/domain/${name}.ts`, import.meta.url));
const explorer = (name: string) => fileURLToPath(new URL(`../src/explorer/${name}.js`, import.meta.url));

/** Each shared module: its domain source and its compiled copy in the explorer. */
export const EXPLORER_MODULES = ['order-search-shape', 'lifecycle', 'open-filler'].map((name) => ({
  source: domain(name),
  js: explorer(name),
  dts: explorer(name).replace(/\.js$/, '.d.ts'),
}));
export const EXPLORER_SEARCH_SHAPE = explorer('order-search-shape');
export const EXPLORER_LIFECYCLE = explorer('lifecycle');
export const EXPLORER_OPEN_FILLER = explorer('open-filler');

const header = (source: string) => `// @ts-check
// GENERATED FILE: do not edit. Compiled from src/domain/${path.basename(source)} by
// scripts/generate-explorer-modules.ts (\`npm run generate:explorer\`); test/explorer-search-shape.test.ts
// fails when it is stale.
`;

/** The texts of a module's explorer copy and its .d.ts for the current domain source. */
export function generateExplorerModule(source: string): { js: string; dts: string } {
  const text = fs.readFileSync(source, 'utf8');
  const compilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext };
  const fileName = path.basename(source);
  const js = ts.transpileModule(text, { compilerOptions, fileName }).outputText;
  const dts = ts.transpileDeclaration(text, { compilerOptions, fileName }).outputText;
  return {
    js: `${header(source)}${js.trimEnd()}\n`,
    dts: `${header(source).replace('// @ts-check\n', '')}${dts.trimEnd()}\n`,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const module of EXPLORER_MODULES) {
    const { js, dts } = generateExplorerModule(module.source);
    fs.writeFileSync(module.js, js);
    fs.writeFileSync(module.dts, dts);
    console.log(`wrote ${path.relative(process.cwd(), module.js)} and its .d.ts`);
  }
}
