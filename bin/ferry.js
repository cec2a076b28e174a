#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build`, which `npm install` runs through `prepare`).
import { existsSync } from 'node:fs';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('ferry: not built yet; run `npm run build` (npm install runs it) in the Ferry folder');
  process.exit(1);
}
await import(main.href);
