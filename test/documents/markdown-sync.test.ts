import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { bothMethods, segmentTexts, textRequests } from '../segments/helpers.js';

// A Markdown file synced for real against the local service: only the segment path takes it (under
// either method), its
// code and URLs come through untouched (link titles are translated), and an edited paragraph is the
// only text sent again.

const GUIDE = fs.readFileSync(path.resolve(import.meta.dirname, 'fixtures/guide.md'), 'utf8');

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('Markdown in a sync', () => {
  it('is translated by segments only, keeps code and URLs, and sends an edited paragraph alone', async () => {
    fx = await createFixture({ files: { 'guide.md': GUIDE }, manifest: bothMethods() });
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    // never uploaded: the document service does not take Markdown, so the document mapping
    // translates it by segments too, to the same output
    expect(first.unsupported).toEqual([]);
    expect(fx.uploads()).toEqual([]);
    const out = fx.read('out/seg/de/guide.md');
    expect(fx.read('out/doc/de/guide.md')).toBe(out);

    for (const kept of [
      'slug: getting-started\n',
      '```js\n// code is never translated\nconst title = "Getting started";\n```',
      '`npm install sync-tool`',
      '](https://example.com/install "',
      '[ref]: https://example.com/reference "',
      '|:-------|:-------:|--------:|',
    ])
      expect(out).toContain(kept);
    // titles are text: translated between their quotes
    expect(out).not.toContain('"Install notes"');
    expect(out).not.toContain('"Reference"');
    const source = await segmentTexts(path.join(fx.src, 'guide.md'));
    const translated = await segmentTexts(path.join(fx.dir, 'out/seg/de/guide.md'));
    expect(translated).toHaveLength(source.length);
    expect(translated.filter((t, i) => t !== source[i]).length).toBeGreaterThan(source.length / 2);

    fx.write('src/guide.md', GUIDE.replace('3. Close the terminal.', '3. Close the terminal window.'));
    const mark = fx.mark();
    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(textRequests(fx, mark).map((r) => [r.texts, r.characters])).toEqual([
      [1, 'Close the terminal window.'.length],
    ]);
    const again = fx.read('out/seg/de/guide.md');
    expect(again.split('\n').filter((l, i) => l !== out.split('\n')[i])).toHaveLength(1);
  });
});
