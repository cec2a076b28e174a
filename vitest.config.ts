import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'sdk/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The CLI suites run the compiled `ferry`: rebuild it when a source is newer than the build.
    globalSetup: ['test/support/build-setup.ts'],
  },
});
