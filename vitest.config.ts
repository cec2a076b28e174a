import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { groupTestFiles, repoTestFiles } from './test/support/test-groups.ts';

// Every test file in exactly one group (test/support/test-groups.ts); `vitest run` runs all three.
const groups = groupTestFiles(repoTestFiles(fileURLToPath(new URL('.', import.meta.url))));

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          isolate: false,
          include: groups.unit,
          // A unit test that starts anvil fails at once instead of quietly slowing the quick run.
          env: { ANVIL_BIN: '/unit-tests-start-no-anvil' },
        },
      },
      { extends: true, test: { name: 'chain', include: groups.chain } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: groups.e2e,
          // The CLI suites run the compiled `ferry`: rebuild it when a source is newer than the build.
          globalSetup: ['test/support/build-setup.ts'],
        },
      },
    ],
  },
});
