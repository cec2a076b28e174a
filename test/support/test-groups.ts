import fs from 'node:fs';
import path from 'node:path';

/**
 * The three test runs (vitest.config.ts makes each a vitest project; test/README.md says when to run which).
 * A file's group is what it starts:
 * - unit: nothing outside the test process (in-process SQLite, an in-process Fastify app on loopback);
 * - chain: anvil devnets, driven from the test process (Ferry's chain code and its contracts on anvil);
 * - e2e: a Ferry server, Ferry's own processes (the CLI, workers, the LP bot), Redis or a browser.
 */
export type TestGroup = 'unit' | 'chain' | 'e2e';

/** The folders whose `*.test.ts` files vitest runs; a test file anywhere else would run in no group. */
export const TEST_ROOTS = ['src', 'sdk/src', 'test', 'contracts/anvil', 'bench'] as const;

/** In test/ but run in the test process alone. */
const UNIT_IN_TEST = [
  'test/error-family.test.ts',
  'test/event-catalogue.test.ts',
  'test/explorer-search-shape.test.ts',
  'test/limit-settings.test.ts',
];

/** Outside contracts/anvil (all of which is chain), the files that start anvil and no Ferry process. */
const CHAIN_OUTSIDE_CONTRACTS = [
  'src/devnet/anvil-process.test.ts',
  'src/chains/block-watcher.test.ts',
  'src/chains/chain-clock.test.ts',
  'src/devnet/devnet.test.ts',
  'src/chains/transactions/transaction-client.test.ts',
  'src/devnet/usdc-devnet.test.ts',
  'test/layerzero-devnet.test.ts',
  'test/loggable-error.test.ts',
];

/** The files named one by one above: each must still be a test file, or the list has gone stale. */
export const LISTED_TEST_FILES: readonly string[] = [...UNIT_IN_TEST, ...CHAIN_OUTSIDE_CONTRACTS];

/** The rest follow their folder: test/ is e2e, contracts/anvil chain, src/, sdk/src and bench/ unit. */
export function groupOf(file: string): TestGroup {
  if (file.startsWith('contracts/anvil/') || CHAIN_OUTSIDE_CONTRACTS.includes(file)) return 'chain';
  if (file.startsWith('test/') && !UNIT_IN_TEST.includes(file)) return 'e2e';
  return 'unit';
}

/**
 * What a test starts, as its text shows it (src/test-groups.test.ts holds every file's group to these): one of the
 * e2e markers makes a file e2e, else one of the chain markers chain, else it is unit.
 */
export const E2E_MARKERS = [
  'startHarness', // test/support/harness.ts: a Ferry server on two devnets
  'startTwoInstances', // two servers sharing Redis
  'startSdkFixture', // a harness with the SDK's accounts
  'startExplorerSession', // a harness and a browser
  "from 'node:child_process'", // Ferry's CLI, worker or LP bot in processes of their own
  "from 'ioredis'",
  "from 'playwright-core'",
] as const;
export const CHAIN_MARKERS = [
  'startAnvil',
  'startDevnets',
  'startSides', // test/support/contract-sides.ts: Ferry's contracts and LayerZero on two anvils
] as const;

export function groupByWhatItStarts(text: string): TestGroup {
  if (E2E_MARKERS.some((marker) => text.includes(marker))) return 'e2e';
  if (CHAIN_MARKERS.some((marker) => text.includes(marker))) return 'chain';
  return 'unit';
}

/** Folders that hold no test of Ferry's: packages, build output, data, tool state (dot folders). */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'data']);

/** Every `*.test.ts` of the repository, relative to its root with forward slashes, sorted. */
export function repoTestFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const file = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory())
        return entry.name.startsWith('.') || NOT_SOURCE.has(entry.name) ? [] : walk(file);
      return entry.name.endsWith('.test.ts') ? [file] : [];
    });
  return walk('').sort();
}

/**
 * The files of each group. Throws when a test file lies outside the test roots (vitest would never run it) or a
 * file named in the lists above is gone (a renamed test would silently change group), so a run cannot start with
 * a test in no group.
 */
export function groupTestFiles(files: readonly string[]): Record<TestGroup, string[]> {
  const stray = files.filter((file) => !TEST_ROOTS.some((dir) => file.startsWith(`${dir}/`)));
  const stale = LISTED_TEST_FILES.filter((file) => !files.includes(file));
  const problems = [
    ...stray.map((file) => `${file} is outside ${TEST_ROOTS.join(', ')}: no test group runs it`),
    ...stale.map((file) => `${file} is named in test/support/test-groups.ts but is no test file`),
  ];
  if (problems.length > 0) throw new Error(`Test groups:\n  - ${problems.join('\n  - ')}`);
  const groups: Record<TestGroup, string[]> = { unit: [], chain: [], e2e: [] };
  for (const file of files) groups[groupOf(file)].push(file);
  return groups;
}
