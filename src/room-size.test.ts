import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { functionSpans, lineCount, sourceFiles } from '../test/support/room-size.ts';

/**
 * Small rooms: every hand-written source file stays readable in one sitting and every function in one screenful
 * or two. A file over the limit holds more than one thing (split it by what each part is for); a function over it
 * does more than one step (name the steps). Functions are parsed by the TypeScript compiler; the callbacks handed
 * to describe/it/beforeAll… are containers of cases, not logic, and only the file limit bounds them. The
 * `describe('… catches …')` block runs each check on made-up text, so a check that stops catching anything fails too.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;
/**
 * A folder's own hand-written source (tests and generated files aside): past this it holds more than one purpose,
 * and a reader looking for a thing no longer finds it by the folder's name. Split it into subfolders by purpose.
 */
const MAX_FOLDER_LINES = 3_000;
const DIRS = ['src', 'sdk/src', 'scripts', 'bench', 'test', 'contracts/anvil'];
/** Folders of data or machine output, never edited by hand. */
const SKIPPED_DIRS = ['src/chains/artifacts', 'bench/results'];
/**
 * Files a script writes, each saying so in a `GENERATED FILE` header and each with a test that fails when it is
 * stale: their size follows their source, not a reader's attention.
 */
const GENERATED = [
  'sdk/src/openapi-types.ts', // scripts/generate-client-types.ts, from the OpenAPI document and event catalogue
  'src/explorer/order-search-shape.js', // scripts/generate-explorer-modules.ts, from src/domain/order-search-shape.ts
  'src/explorer/order-search-shape.d.ts',
  'src/explorer/lifecycle.js', // scripts/generate-explorer-modules.ts, from src/domain/lifecycle.ts
  'src/explorer/lifecycle.d.ts',
  'src/explorer/open-filler.js', // scripts/generate-explorer-modules.ts, from src/domain/open-filler.ts
  'src/explorer/open-filler.d.ts',
];
const GENERATED_HEADER = /GENERATED FILE/;
/** Migrations are history: a shipped one may change in form, never in the statements it runs; the function limit skips them. */
const FROZEN_DIRS = ['src/store/migrations'];

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
/** The header is in a file's first comment: its opening lines. */
const saysGenerated = (text: string) => GENERATED_HEADER.test(text.split('\n').slice(0, 5).join('\n'));

function longFiles(files: ReadonlyMap<string, string>, max: number): string[] {
  return [...files]
    .filter(([, text]) => lineCount(text) > max)
    .map(([file, text]) => `${file}: ${lineCount(text)} lines (at most ${max})`);
}

/** Each folder's own files (not its subfolders'), summed, for the folders over `max`. */
function bigFolders(files: ReadonlyMap<string, string>, max: number): string[] {
  const sizes = new Map<string, number>();
  for (const [file, text] of files) {
    if (file.endsWith('.test.ts')) continue;
    const folder = path.posix.dirname(file);
    sizes.set(folder, (sizes.get(folder) ?? 0) + lineCount(text));
  }
  return [...sizes]
    .filter(([, lines]) => lines > max)
    .map(([folder, lines]) => `${folder}: ${lines} lines in its own files (at most ${max})`);
}

/** Every folder of src holding source files (data folders aside) says in a README what lives there. */
function foldersWithoutReadme(files: readonly string[], exists: (file: string) => boolean): string[] {
  const folders = new Set(
    files.filter((file) => file.startsWith('src/')).map((file) => path.posix.dirname(file)),
  );
  return [...folders].filter((folder) => !exists(`${folder}/README.md`)).sort();
}

interface LongFunction {
  readonly key: string;
  readonly report: string;
}

function longFunctionsOf(files: ReadonlyMap<string, string>, max: number): LongFunction[] {
  return [...files].flatMap(([file, text]) =>
    functionSpans(file, text)
      .filter((span) => span.lines > max)
      .map((span) => ({
        key: `${file} ${span.name}`,
        report: `${file}:${span.line} ${span.name}: ${span.lines} lines (at most ${max})`,
      })),
  );
}

function longFunctions(files: ReadonlyMap<string, string>, max: number): string[] {
  return longFunctionsOf(files, max).map((f) => f.report);
}

describe('room size', () => {
  const all = sourceFiles(ROOT, DIRS, SKIPPED_DIRS);
  const handWritten = new Map(
    all.filter((file) => !GENERATED.includes(file)).map((file) => [file, read(file)]),
  );

  it('reads the files it checks (the walk works)', () => {
    expect(all).toEqual(expect.arrayContaining(['src/app.ts', 'sdk/src/index.ts', 'src/explorer/app.js']));
    expect(all.filter((file) => file.startsWith('scripts/')).length).toBeGreaterThan(0);
    expect(all.filter((file) => file.startsWith('bench/')).length).toBeGreaterThan(0);
    expect(all.filter((file) => SKIPPED_DIRS.some((dir) => file.startsWith(`${dir}/`)))).toEqual([]);
  });

  it('declares exactly the generated files: each exists and says so, and no other file does', () => {
    for (const file of GENERATED) expect(saysGenerated(read(file)), file).toBe(true);
    expect([...handWritten].filter(([, text]) => saysGenerated(text)).map(([file]) => file)).toEqual([]);
  });

  it(`keeps every hand-written file to ${MAX_FILE_LINES} lines`, () => {
    expect(longFiles(handWritten, MAX_FILE_LINES)).toEqual([]);
  });

  it(`keeps every folder of src to ${MAX_FOLDER_LINES} lines of its own, each with a README`, () => {
    const src = new Map([...handWritten].filter(([file]) => file.startsWith('src/')));
    expect(bigFolders(src, MAX_FOLDER_LINES)).toEqual([]);
    expect(foldersWithoutReadme(all, (file) => fs.existsSync(path.join(ROOT, file)))).toEqual([]);
  });

  it(`keeps every function to ${MAX_FUNCTION_LINES} lines (frozen migrations aside)`, () => {
    const live = new Map(
      [...handWritten].filter(([file]) => !FROZEN_DIRS.some((dir) => file.startsWith(`${dir}/`))),
    );
    expect(longFunctions(live, MAX_FUNCTION_LINES)).toEqual([]);
  });
});

/** `count` lines of statements, the body of a made-up function. */
const statements = (count: number) => Array.from({ length: count }, (_, i) => `  step(${i});`).join('\n');

describe('each room-size check catches a violation', () => {
  it('a file over the limit', () => {
    const short = new Map([['a.ts', 'const a = 1;\n'.repeat(3)]]);
    expect(longFiles(short, 3)).toEqual([]);
    const long = new Map([['a.ts', 'const a = 1;\n'.repeat(4)]]);
    expect(longFiles(long, 3)).toEqual(['a.ts: 4 lines (at most 3)']);
  });

  it('a folder over the limit in its own files, tests and subfolders aside', () => {
    const lines = (n: number) => 'const a = 1;\n'.repeat(n);
    const files = new Map([
      ['src/a/x.ts', lines(2)],
      ['src/a/y.ts', lines(2)],
      ['src/a/x.test.ts', lines(9)],
      ['src/a/b/z.ts', lines(4)],
    ]);
    expect(bigFolders(files, 4)).toEqual([]);
    expect(bigFolders(files, 3)).toEqual([
      'src/a: 4 lines in its own files (at most 3)',
      'src/a/b: 4 lines in its own files (at most 3)',
    ]);
  });

  it('a src folder without a README', () => {
    const files = ['src/a/x.ts', 'src/a/b/y.ts', 'test/z.ts'];
    expect(foldersWithoutReadme(files, (file) => file === 'src/a/README.md')).toEqual(['src/a/b']);
  });

  it('counts every kind of function, and only the lines it spans', () => {
    const text = [
      `function declared() {\n${statements(3)}\n}`,
      `const arrow = () => {\n${statements(3)}\n};`,
      `const expression = function () {\n${statements(3)}\n};`,
      `class C {\n  method() {\n${statements(3)}\n  }\n  constructor() {\n${statements(3)}\n  }\n}`,
      `const object = {\n  property: () => {\n${statements(3)}\n  },\n};`,
    ].join('\n');
    const spans = functionSpans('x.ts', text).map((span) => [span.name, span.lines]);
    expect(spans).toEqual([
      ['declared', 5],
      ['arrow', 5],
      ['expression', 5],
      ['method', 5],
      ['constructor', 5],
      ['property', 5],
    ]);
    const files = new Map([['x.ts', text]]);
    expect(longFunctions(files, 5)).toEqual([]);
    expect(longFunctions(files, 4)).toHaveLength(6);
    expect(longFunctions(files, 4)[0]).toBe('x.ts:1 declared: 5 lines (at most 4)');
  });

  it('a long function inside a test block, but not the test blocks themselves', () => {
    const text = [
      `describe('d', () => {`,
      `  beforeAll(async () => {\n${statements(9)}\n  });`,
      `  it.each([1])('e %s', (n) => {\n${statements(9)}\n  });`,
      `  describe.skipIf(false)('s', () => {\n${statements(9)}\n  });`,
      `  it('i', async () => {\n    const helper = () => {\n${statements(9)}\n    };\n  });`,
      `});`,
    ].join('\n');
    expect(longFunctions(new Map([['x.test.ts', text]]), 10)).toEqual([
      'x.test.ts:36 helper: 11 lines (at most 10)',
    ]);
  });

  it('a generated header, in a file’s opening lines only', () => {
    expect(saysGenerated('// GENERATED FILE: do not edit.\nconst a = 1;\n')).toBe(true);
    expect(saysGenerated(`${'\n'.repeat(10)}// GENERATED FILE\n`)).toBe(false);
  });
});
