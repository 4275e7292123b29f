import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { createSyncEvents } from '../../src/sync/events.js';
import { runSync } from '../../src/sync/engine.js';
import { createFixture, FAST_POLL, onPostgres, type Fixture } from '../sync/fixture.js';
import { editManifest, segmentsMapping } from './helpers.js';

// The segment memory is asked once per batch of jobs, not once per document (issue 51): a first sync
// of 200 small string files asked the state once or more per document (on PostgreSQL, each a round
// trip). Counted on the state the run really uses, on both backends.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

function stringFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < count; f++)
    files[`screen-${f}.json`] =
      `${JSON.stringify({ title: `Screen ${f}`, save: 'Save', back: `Back to ${f}` })}\n`;
  return files;
}

describe('memory lookups of a run', () => {
  it('looks the segments of 200 string files up in a few queries, and finds them the next run', async () => {
    fx = await createFixture({ manifest: { mappings: [segmentsMapping()] }, files: stringFiles(200) });
    // 16 documents in flight at once: read and looked up together.
    editManifest(fx, (m) => ((m.service as Record<string, unknown>).concurrency = 16));
    const sync = async () => {
      const opened = await fx!.open();
      const memory = opened.state.segments!;
      const calls: number[] = [];
      const recall = memory.recall.bind(memory);
      memory.recall = (keys) => {
        if (keys.length > 0) calls.push(keys.length);
        return recall(keys);
      };
      try {
        const summary = await runSync({
          loaded: await fx!.load(),
          connection: { client: fx!.client() },
          state: opened.state,
          logger: silentLogger(),
          events: createSyncEvents(),
          options: { poll: FAST_POLL },
        });
        return { summary, calls };
      } finally {
        await opened.close();
      }
    };
    const first = await sync();
    expect(first.summary.failed).toEqual([]);
    expect(first.summary.translated).toBe(200);
    // Every document's segments were asked for (own and any-settings keys; 'Save' is in every file)...
    expect(first.calls.reduce((n, k) => n + k, 0)).toBeGreaterThanOrEqual(200 * 2 * 2 + 2);
    // ...in far fewer queries than documents: on SQLite, whose queries answer at once, the lookups
    // of the documents read in the same turn (before the shared lookups: 231 queries; with them
    // 20-50, more on a loaded machine, where fewer documents are read in one turn); on PostgreSQL
    // every query is a round trip, the lookups (and the claims' lookups) asked meanwhile go in the
    // next one (before: about 600, three per document). Half a query per document at most.
    expect(first.calls.length, JSON.stringify(first.calls)).toBeLessThanOrEqual(onPostgres ? 300 : 100);
    expect(JSON.parse(fx.read('out/de/screen-7.json'))).toHaveProperty('back');
    // A source changed in one string: the rest comes from the memory, one new text sent.
    fx.write(
      'src/screen-7.json',
      `${JSON.stringify({ title: 'Screen 7', save: 'Save', back: 'Go back' })}\n`,
    );
    const again = await sync();
    expect(again.summary.translated).toBe(1);
    expect(again.calls.length).toBeGreaterThan(0);
  });
});
