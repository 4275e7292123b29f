import { describe, expect, it } from 'vitest';
import { formatTable, formatTally } from '../../bench/lib/table.js';
import { QUICK_ENV } from '../../bench/lib/options.js';

// `npm run bench -- --only strings-race` without a checkout of DeepL's CLI (DEEPL_CLI_DIR): the
// bench says the peer was not run and still gives locsync's requests per 1,000 segments; the race
// is neither won nor lost against a peer that did not run.

describe('strings-race without deepl-cli', () => {
  it('says the peer was not run, with no figure or verdict for it', async () => {
    const env = { quick: process.env[QUICK_ENV], peer: process.env.DEEPL_CLI_DIR };
    process.env[QUICK_ENV] = '1';
    // A small project (2 files of 60 keys): the figures do not matter here, only what is said.
    process.env.LOCSYNC_BENCH_RACE_FILES = '2';
    process.env.LOCSYNC_BENCH_RACE_KEYS = '60';
    delete process.env.DEEPL_CLI_DIR;
    try {
      const { run } = await import('../../bench/strings-race.js');
      // As the runner has them: through the child's JSON file.
      const results = JSON.parse(JSON.stringify(await run())) as Awaited<ReturnType<typeof run>>;
      const rows = results.map((result) => ({ bench: 'strings-race', result }));
      const table = formatTable(rows);
      // Two races (a service at 50 requests a second, one without a limit): the peer in neither.
      const peers = table.split('\n').filter((l) => l.includes('deepl-cli first sync'));
      expect(peers, table).toHaveLength(2);
      for (const peer of peers) {
        expect(peer).toMatch(/not measured .*not run: set DEEPL_CLI_DIR/);
        expect(peer).not.toMatch(/\byes\b|\bNO\b/);
      }
      expect(table).toMatch(/locsync text requests per 1,000 segments .*\| <= 25 +\|/);
      // Only the requests per 1,000 segments is judged, once in each race.
      expect(formatTally(rows)).toMatch(/; 2 with a target: /);
    } finally {
      if (env.quick === undefined) delete process.env[QUICK_ENV];
      else process.env[QUICK_ENV] = env.quick;
      if (env.peer !== undefined) process.env.DEEPL_CLI_DIR = env.peer;
      delete process.env.LOCSYNC_BENCH_RACE_FILES;
      delete process.env.LOCSYNC_BENCH_RACE_KEYS;
    }
  });
});
