import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stateAdoptAction } from '../../src/cli/state-adopt.js';
import { createFixture, defaultManifest, type Fixture } from './fixture.js';

// The first scan after a run with much work checks every file against its jobs a part of the files
// at a time (src/sync/plan/inventory.ts), reading records a page at a time: across parts and pages
// it finds every output up to date, notices a deleted source and a new file, records the marks,
// and the snapshot once nothing is left to do.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** More files than a part of the scan (1,024), in a few folders. */
const FILES = 1100;
const rel = (i: number) => `d${i % 5}/f${String(i).padStart(4, '0')}.txt`;

describe('the first scan after a run with much work', () => {
  it('checks files across parts: nothing uploaded, a deleted source and a new file noticed, then the no-op paths', async () => {
    fx = await createFixture();
    const m = defaultManifest(fx.service.url);
    const mapping = (m.mappings as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    fx.write(
      'pipeline.yaml',
      JSON.stringify({
        ...m,
        mappings: [{ ...mapping, targets: [{ lang: 'de' }], on_source_delete: 'delete' }],
      }),
    );
    // The state a run that translated every file leaves (done jobs, no marks, no snapshot), as
    // `state adopt` records existing outputs: 1,100 translations through the service would be slow.
    const later = new Date(Date.now() + 60_000);
    for (let i = 0; i < FILES; i++) {
      fx.write(`src/${rel(i)}`, `Sentence ${i}.\n`);
      fx.write(`out/de/${rel(i)}`, `Satz ${i}.\n`);
      fs.utimesSync(path.join(fx.dir, 'out/de', rel(i)), later, later);
    }
    const stdout = vi.spyOn(process.stdout, 'write').mockReturnValue(true);
    await stateAdoptAction({ config: fx.manifestPath, json: true });
    const adopted = JSON.parse(String(stdout.mock.calls[0]?.[0])) as { adopted: unknown[] };
    stdout.mockRestore();
    expect(adopted.adopted).toHaveLength(FILES);

    // A source in the last part deleted, a new one added.
    fs.rmSync(path.join(fx.src, rel(FILES - 3)));
    fx.write('src/d0/new.txt', 'New.\n');
    let mark = fx.mark();
    const first = await fx.sync();
    expect(first).toMatchObject({ translated: 1, unchanged: FILES - 1, hashed: 1, removedSources: 1 });
    expect(fx.exists(`out/de/${rel(FILES - 3)}`)).toBe(false);
    expect(fx.uploads(mark).map((u) => u.filename)).toEqual(['new.txt']);

    // Every file was marked: the next scan reads no content, and takes the snapshot.
    mark = fx.mark();
    const second = await fx.sync();
    expect(second).toMatchObject({ translated: 0, unchanged: FILES, hashed: 0 });
    const opened = await fx.open();
    try {
      expect(await opened.state.files.snapshot('docs')).toBeDefined();
    } finally {
      await opened.close();
    }
    const third = await fx.sync();
    expect(third).toMatchObject({ translated: 0, unchanged: FILES, hashed: 0 });
    expect(fx.documentRequests(mark)).toEqual([]);
  });
});
