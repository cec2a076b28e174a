import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CHAIN_MARKERS,
  E2E_MARKERS,
  groupByWhatItStarts,
  groupOf,
  groupTestFiles,
  LISTED_TEST_FILES,
  repoTestFiles,
} from '../test/support/test-groups.ts';
import config from '../vitest.config.ts';

/**
 * One run for every rhythm (test/README.md): `npm run test:unit`, `test:chain` and `test:e2e` are vitest's projects
 * unit, chain and e2e, and `npm test` runs them all. Every test file of the repository is in exactly one, the one of
 * what it starts; the `catches` block runs each check on made-up input, so a check that stops catching fails too.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const files = repoTestFiles(ROOT);

describe('test groups', () => {
  it('the projects unit, chain and e2e together run every test file of the repository, each once', () => {
    const projects = (config.test?.projects ?? []) as { test: { name: string; include: string[] } }[];
    expect(projects.map((project) => project.test.name)).toEqual(['unit', 'chain', 'e2e']);
    expect(projects.flatMap((project) => project.test.include).sort()).toEqual(files);
  });

  it('each file is in the group of what it starts', () => {
    const misplaced = files
      .map((file) => ({ file, group: groupOf(file), starts: groupByWhatItStarts(read(file)) }))
      .filter(({ group, starts }) => group !== starts)
      .map(({ file, group, starts }) => `${file}: in ${group}, starts what ${starts} tests start`);
    expect(misplaced).toEqual([]);
  });

  describe('catches', () => {
    it('a test file where no group looks', () => {
      expect(() => groupTestFiles([...files, 'docs/examples.test.ts'])).toThrow(
        'docs/examples.test.ts is outside src, sdk/src, test, contracts/anvil, bench: no test group runs it',
      );
    });

    it('a file named in a list that is gone', () => {
      const gone = LISTED_TEST_FILES[0]!;
      expect(() => groupTestFiles(files.filter((file) => file !== gone))).toThrow(`${gone} is named in`);
    });

    it('a test that starts anvil, or anything outside the test process', () => {
      for (const marker of CHAIN_MARKERS) expect(groupByWhatItStarts(`await ${marker}`)).toBe('chain');
      for (const marker of E2E_MARKERS) expect(groupByWhatItStarts(`x ${marker} y`)).toBe('e2e');
      expect(groupByWhatItStarts(`${CHAIN_MARKERS[0]} ${E2E_MARKERS[0]}`)).toBe('e2e');
      expect(groupByWhatItStarts('expect(1 + 1).toBe(2)')).toBe('unit');
    });
  });
});

function read(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}
