/**
 * Compiles `src/domain/order-search-shape.ts` (the shape rules of a public search text) to
 * `src/explorer/order-search-shape.js`, so the explorer, which the browser loads as plain ES modules with no build
 * step, tells searches apart by the API's own rules instead of a copy of them.
 *
 *   npm run generate:explorer
 *
 * Its declarations go beside it (order-search-shape.d.ts) for the explorer's type check.
 * src/domain/order-search-shape.test.ts compiles it again in memory and fails when the committed file differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const SEARCH_SHAPE_SOURCE = fileURLToPath(
  new URL('../src/domain/order-search-shape.ts', import.meta.url),
);
export const EXPLORER_SEARCH_SHAPE = fileURLToPath(
  new URL('../src/explorer/order-search-shape.js', import.meta.url),
);
export const EXPLORER_SEARCH_SHAPE_TYPES = EXPLORER_SEARCH_SHAPE.replace(/\.js$/, '.d.ts');

const HEADER = `// @ts-check
// GENERATED FILE: do not edit. Compiled from src/domain/order-search-shape.ts by
// scripts/generate-explorer-search.ts (\`npm run generate:explorer\`); src/domain/order-search-shape.test.ts
// fails when it is stale.
`;

/** The texts of src/explorer/order-search-shape.js and its .d.ts for the current domain rules. */
export function generateExplorerSearchShape(): { js: string; dts: string } {
  const source = fs.readFileSync(SEARCH_SHAPE_SOURCE, 'utf8');
  const compilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext };
  const fileName = path.basename(SEARCH_SHAPE_SOURCE);
  const js = ts.transpileModule(source, { compilerOptions, fileName }).outputText;
  const dts = ts.transpileDeclaration(source, { compilerOptions, fileName }).outputText;
  return {
    js: `${HEADER}${js.trimEnd()}\n`,
    dts: `${HEADER.replace('// @ts-check\n', '')}${dts.trimEnd()}\n`,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { js, dts } = generateExplorerSearchShape();
  fs.writeFileSync(EXPLORER_SEARCH_SHAPE, js);
  fs.writeFileSync(EXPLORER_SEARCH_SHAPE_TYPES, dts);
  console.log(`wrote ${path.relative(process.cwd(), EXPLORER_SEARCH_SHAPE)} and its .d.ts`);
}
