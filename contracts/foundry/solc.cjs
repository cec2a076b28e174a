#!/usr/bin/env node
// forge's compiler, offline: the pinned solc-js (package.json) behind the two entry points forge uses, so the
// Foundry suites compile with exactly the compiler that builds Ferry's artifacts (scripts/compile-contracts.ts).
const solc = require('solc');

if (process.argv.includes('--version')) {
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`);
} else {
  // `--standard-json`: the whole input on stdin, the whole output on stdout.
  let input = '';
  process.stdin.on('data', (chunk) => {
    input += chunk;
  });
  process.stdin.on('end', () => process.stdout.write(solc.compile(input)));
}
