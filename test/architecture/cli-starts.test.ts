import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { typescriptSources } from '../helpers/source-files.js';

// The tests start the CLI with CLI_ARGS of test/helpers/cli.ts: the built CLI when dist/ is current
// (CI builds it), half the CPU of the sources run through tsx. A test that spawns src/cli/main.ts
// through tsx itself pays the difference at every start (workers and chaos runs start hundreds).

const TEST = path.resolve(__dirname, '..');

const testSources = () => typescriptSources(TEST);

describe('how the tests start the CLI', () => {
  it('only test/helpers/cli.ts names the sources with tsx: every other start goes through CLI_ARGS', () => {
    const throughTsx = testSources()
      .filter(({ code }) => /['"`]tsx['"`]/.test(code) && /cli\/main\.ts/.test(code))
      .map(({ file }) => file)
      .sort();
    expect(throughTsx).toEqual(['helpers/cli.ts']);
  });
});
