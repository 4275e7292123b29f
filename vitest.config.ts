import { defineConfig } from 'vitest/config';

// CI (.ci/run) sets LOCSYNC_TEST_REPORT to collect counts for its closing line.
const report = process.env.LOCSYNC_TEST_REPORT;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: report ? ['default', 'json'] : ['default'],
    ...(report ? { outputFile: { json: report } } : {}),
  },
});
