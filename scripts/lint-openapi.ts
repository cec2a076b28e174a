/**
 * Lints the OpenAPI document as the server serves it with Redocly's recommended rules, so code generators and
 * API tools for other languages can use it (they name methods from operationId, read security and servers).
 *
 *   npm run lint:openapi
 *
 * Fails on any error or warning. The few findings that cannot be true of this API are listed in EXCEPTIONS with
 * their reason and handed to Redocly as its ignore file; an exception that no longer matches a finding fails too,
 * so the list cannot go stale. No chain, database file or listening socket is needed (scripts/openapi-document.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from './openapi-document.ts';

interface Exception {
  rule: string;
  pointer: string;
  why: string;
}

const EXCEPTIONS: readonly Exception[] = [
  {
    rule: 'operation-4xx-response',
    pointer: '#/paths/~1healthz/get/responses',
    why: 'takes no parameters or credentials and is never rate limited, so no request to it is answered 4xx',
  },
  {
    rule: 'operation-4xx-response',
    pointer: '#/paths/~1readyz/get/responses',
    why: 'takes no parameters or credentials and is never rate limited, so no request to it is answered 4xx',
  },
  {
    rule: 'operation-2xx-response',
    pointer: '#/paths/~1ws/get/responses',
    why: 'a WebSocket handshake succeeds with 101 Switching Protocols (documented), never with a 2xx',
  },
];

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{
    ruleId: string;
    severity: string;
    message: string;
    location: Array<{ pointer?: string }>;
  }>;
}

/** Redocly's ignore file: `file: {rule: [pointer, ...]}`, paths relative to the file's folder. */
function ignoreFile(document: string): string {
  const byRule = new Map<string, string[]>();
  for (const e of EXCEPTIONS) byRule.set(e.rule, [...(byRule.get(e.rule) ?? []), e.pointer]);
  const lines = [`${document}:`];
  for (const [rule, pointers] of byRule) {
    lines.push(`  ${rule}:`, ...pointers.map((p) => `    - '${p}'`));
  }
  return `${lines.join('\n')}\n`;
}

function runRedocly(dir: string, document: string): LintReport {
  const cli = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
    'bin/cli.js',
  );
  const run = spawnSync(process.execPath, [cli, 'lint', '--extends=recommended', '--format=json', document], {
    cwd: dir,
    encoding: 'utf8',
    // No usage report and no update check: CI must not depend on Redocly's servers.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  try {
    return JSON.parse(run.stdout) as LintReport;
  } catch {
    throw new Error(`redocly lint did not report (exit ${run.status}): ${run.stderr || run.error?.message}`);
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-openapi-lint-'));
try {
  const document = 'openapi.json';
  fs.writeFileSync(path.join(dir, document), JSON.stringify(await buildOpenApiDocument(), null, 2));
  fs.writeFileSync(path.join(dir, '.redocly.lint-ignore.yaml'), ignoreFile(document));
  const report = runRedocly(dir, document);
  for (const p of report.problems) {
    console.log(`${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
  }
  const { errors, warnings, ignored } = report.totals;
  console.log(
    `openapi.json, Redocly recommended rules: ${errors} errors, ${warnings} warnings, ${ignored} known exceptions`,
  );
  for (const e of EXCEPTIONS) console.log(`  exception ${e.rule} ${e.pointer}: ${e.why}`);
  if (ignored !== EXCEPTIONS.length) {
    console.log(`${EXCEPTIONS.length - ignored} exception(s) no longer match a finding: remove them`);
  }
  if (errors > 0 || warnings > 0 || ignored !== EXCEPTIONS.length) process.exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
