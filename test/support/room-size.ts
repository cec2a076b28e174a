import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One function of a source file and how many lines it spans, as src/room-size.test.ts reads it. */
export interface FunctionSpan {
  /** Its name, or how it is bound (`const x = () => …`, a method, a property), or `(anonymous)`. */
  readonly name: string;
  /** The line it starts on, counting from 1. */
  readonly line: number;
  /** The lines from its first token to its last, both counted. */
  readonly lines: number;
}

const SOURCE = /\.(ts|js|mjs)$/;

/**
 * The test runner's blocks. A function handed to one of them is a container of cases (a `describe` holds many
 * `it`s), not one piece of logic, so it is not held to the function limit; the file limit still bounds it.
 */
const TEST_BLOCKS = new Set([
  'describe',
  'suite',
  'it',
  'test',
  'beforeAll',
  'beforeEach',
  'afterAll',
  'afterEach',
]);

/** The identifier a callee starts with: `it` for `it(…)`, `it.each(…)(…)`, `describe.skipIf(x)(…)`. */
function calleeRoot(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return calleeRoot(expression.expression);
  if (ts.isCallExpression(expression)) return calleeRoot(expression.expression);
  return undefined;
}

function isTestBlockCallback(node: ts.Node): boolean {
  const call = node.parent;
  if (call === undefined || !ts.isCallExpression(call)) return false;
  if (!call.arguments.some((argument) => argument === node)) return false;
  const root = calleeRoot(call.expression);
  return root !== undefined && TEST_BLOCKS.has(root);
}

function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    parent.name !== undefined
  ) {
    return parent.name.getText(source);
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Every function of one file's text (test-block callbacks excepted), parsed by the TypeScript compiler. */
export function functionSpans(fileName: string, text: string): FunctionSpan[] {
  const kind = fileName.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const spans: FunctionSpan[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined && !isTestBlockCallback(node)) {
      const fn = node as ts.FunctionLikeDeclaration;
      const line = lineOf(fn.getStart(source));
      spans.push({ name: nameOf(fn, source), line, lines: lineOf(fn.end) - line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

/** The lines of a text, a final newline ending the last one rather than starting another. */
export const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Every .ts, .js and .mjs file under `dirs` (relative to `root`, with `/`), skipping the folders `skip` names. */
export function sourceFiles(root: string, dirs: readonly string[], skip: readonly string[]): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const file = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) return skip.includes(file) || entry.name === 'node_modules' ? [] : walk(file);
      return SOURCE.test(entry.name) ? [file] : [];
    });
  return dirs.flatMap(walk).sort();
}
