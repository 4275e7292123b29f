import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSyncEvents } from '../../src/sync/events.js';
import { formatSummary } from '../../src/sync/summary.js';
import { createFixture, type Fixture } from './fixture.js';

// The closing summary counts each source file, and each up-to-date output, once: work planned again
// during the run (a source edited under it) is not a new file, and an output this run translated is
// not "unchanged" at a second look.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('summary counts', () => {
  it('8 files edited while the run uploads them (each re-planned): 8 source files, not one more per re-plan', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`doc${i}.txt`, `Document ${i}.\n`]),
    );
    fx = await createFixture({ files });
    const events = createSyncEvents();
    let edited = false;
    events.on('job:uploading', () => {
      if (edited) return;
      edited = true;
      // Every source changes under the run: the work not yet started is planned again.
      for (const name of Object.keys(files))
        fs.writeFileSync(path.join(fx!.src, name), `Document ${name}, edited while the run went on.\n`);
    });
    const s = await fx.sync({
      events,
      edit: (l) => {
        l.manifest.service.concurrency = 1;
      },
    });
    expect(edited).toBe(true);
    expect(s.files).toBe(8);
    expect(s.unchanged).toBe(0);
    expect(formatSummary(s)).toMatch(/^8 source files; /m);

    // The next run: the one document uploaded before the edit is translated again, the rest is up to date.
    const again = await fx.sync();
    expect(again.files).toBe(8);
    expect(again.translated + again.unchanged).toBe(16);
  });

  it('one source file and one unsupported file are each "1 file", not "1 files"', async () => {
    // A new team's first folder: a text file, and a string file the document mapping cannot take.
    fx = await createFixture({
      files: { 'notes.txt': 'Press the green button.\n', 'en.json': '{ "a": "Sign up" }\n' },
    });
    const s = await fx.sync();
    expect(s.unsupported).toHaveLength(1);
    expect(formatSummary(s)).toMatch(/^1 source file; outputs: .*; 1 file unsupported$/m);
  });
});
