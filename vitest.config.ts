import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { MACHINE_PG_URL, PG_SKIP_NOTICE, pgAnswers, pgBinDir } from './test/helpers/postgres.js';

// CI (.ci/run) sets LOCSYNC_TEST_REPORT to collect counts for its closing line.
const report = process.env.LOCSYNC_TEST_REPORT;

// The sync suite (and the segment path's, test/segments, and the XLIFF round trip's, test/xliff)
// runs a second time on a PostgreSQL state (test/sync/fixture.ts) when a server can be had (see
// test/helpers/postgres.ts); the tests of pure functions there need no second run.
const pgAvailable =
  !!process.env.LOCSYNC_TEST_PG_URL || (await pgAnswers(MACHINE_PG_URL)) || pgBinDir() !== undefined;
if (!pgAvailable) console.warn(`sync suite on PostgreSQL: ${PG_SKIP_NOTICE}`);
const PURE = ['decide', 'timing', 'saved-plan', 'scan', 'unrecorded-outputs', 'retranslate', 'adoptable'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time even on two cores: the tests mostly wait on the processes, servers
    // and databases they start (one file at a time kept CI's two cores 40% busy, 29 minutes).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    reporters: report ? ['default', 'json'] : ['default'],
    ...(report ? { outputFile: { json: report } } : {}),
    projects: [
      { extends: true, test: { name: 'locsync', include: ['test/**/*.test.ts'] } },
      ...(pgAvailable
        ? [
            {
              extends: true as const,
              test: {
                name: 'sync on postgres',
                include: [
                  'test/sync/**/*.test.ts',
                  'test/segments/**/*.test.ts',
                  'test/strings/sync*.test.ts',
                  'test/documents/markdown-sync.test.ts',
                  'test/xliff/**/*.test.ts',
                ],
                exclude: [
                  ...PURE.map((n) => `test/sync/${n}.test.ts`),
                  ...['batches', 'manifest'].map((n) => `test/segments/${n}.test.ts`),
                  // Already two machines on one PostgreSQL state, whatever the backend.
                  'test/xliff/shared-state.test.ts',
                ],
                env: { LOCSYNC_TEST_BACKEND: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
