#!/usr/bin/env node
// Builds what `ferry` and the SDK package run: the server and CLI as JavaScript in dist/ (with the explorer's
// static files and the contract artifacts the code reads at run time), and the SDK in sdk/dist. Plain
// JavaScript on purpose: `npm install` runs it (`prepare`) before anything else can.
//
//   npm run build            build
//   node scripts/build.mjs --if-stale   build only when a source is newer than the last build (tests use this)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const stamp = path.join(root, 'dist', '.build-stamp');
const SOURCES = ['src', 'sdk/src', 'docs', 'tsconfig.json', 'tsconfig.build.json', 'sdk/tsconfig.build.json'];
/** Files the compiled code reads beside itself, copied into dist/ as they are (docs: served at /guides/). */
const ASSETS = ['src/explorer', 'src/chains/artifacts', 'docs'];

function newestMtime(entry) {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(full)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

export function buildIsStale() {
  if (!fs.existsSync(stamp) || !fs.existsSync(path.join(root, 'sdk', 'dist', 'index.js'))) return true;
  const built = fs.statSync(stamp).mtimeMs;
  return SOURCES.some((entry) => newestMtime(entry) > built);
}

export function build() {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const project of ['sdk/tsconfig.build.json', 'tsconfig.build.json']) {
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  }
  for (const asset of ASSETS) {
    fs.cpSync(path.join(root, asset), path.join(root, 'dist', asset), { recursive: true });
  }
  fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale') && !buildIsStale()) process.exit(0);
  build();
}
