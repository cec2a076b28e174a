#!/usr/bin/env node
// How long `ferry --help` takes to answer, median of N runs (default 7):
//   before: the TypeScript sources run through tsx, as bin/ferry.js started before the build step
//   after:  the compiled CLI, as `ferry` runs now (bin/ferry.js → dist/, built by `npm run build`)
//
//   npm run cli-start-time [-- runs]
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const runs = Number(process.argv[2] ?? 7);

function median(args) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    execFileSync(process.execPath, args, { cwd: root, stdio: 'ignore' });
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]);
}

console.log(`ferry --help, median of ${runs} runs`);
console.log(`  node itself (node -e 0):          ${median(['-e', '0'])} ms`);
console.log(
  `  before (tsx, TypeScript sources): ${median(['--import', 'tsx', 'src/cli/main.ts', '--help'])} ms`,
);
console.log(`  after  (compiled, bin/ferry.js):  ${median(['bin/ferry.js', '--help'])} ms`);
