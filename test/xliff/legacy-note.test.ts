import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { importXliff } from '../../src/xliff/import.js';
import { charactersSent, segmentsMapping, segmentTexts } from '../segments/helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { withState } from './helpers.js';

// Before the outputs waiting for imported wording were kept in the state, `xliff import` noted them
// in imported-wording.json in the state folder. A file an earlier locsync left there is carried
// into the state by the next sync (which writes those outputs, sending nothing) and removed.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('imported wording noted by an earlier locsync', () => {
  it('a plain sync writes the outputs imported-wording.json names, and the file goes', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: { 'guide.md': '# Setup\n\nThen fill the tank.\n' },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const f = fx;
    const xlf = path.join(f.dir, 'de.xlf');
    const loaded = await f.load();
    await withState(f, (o) =>
      exportXliff(loaded, o.state, o.state.memory!, { out: xlf, only: 'all', lang: 'de' }),
    );
    f.write(
      'de.xlf',
      f.read('de.xlf').replace(/(<source>Setup<\/source>\s*<target[^>]*>)[^<]*/, '$1Einrichtung'),
    );
    // The import as an earlier locsync made it: the note in the state folder, none in the state.
    const legacy = path.join(path.dirname(loaded.statePath), 'imported-wording.json');
    await withState(f, async (o) => {
      const imported = await importXliff(loaded, o.state, o.state.memory!, [xlf]);
      expect(imported.taken).toHaveLength(1);
      const notes = await o.state.importedWording!.list();
      expect(notes.map((w) => w.output)).toEqual(['out/de/guide.md']);
      await o.state.importedWording!.settle(notes);
      fs.writeFileSync(legacy, JSON.stringify(notes, null, 1));
    });

    const mark = f.mark();
    const run = await f.sync();
    expect(run.failed).toEqual([]);
    expect(run.translated).toBe(1);
    expect(charactersSent(f, mark)).toBe(0);
    expect((await segmentTexts(path.join(f.dir, 'out/de/guide.md')))[0]).toBe('Einrichtung');
    expect(fs.existsSync(legacy)).toBe(false);
    expect((await f.sync()).translated).toBe(0);
  });
});
