import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256, startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

// watch: a file saved again without a change of content (an html comment rewritten) keeps its
// outputs and is not uploaded; a change of its text is.

let w: WatchFixture | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const page = (comment: string, word = 'Welcome') =>
  `<!doctype html><html><head><!-- ${comment} --></head><body><p>${word} home.</p></body></html>\n`;

describe('watch: a re-saved document', () => {
  it('is recorded against its translation without an upload; an edit is uploaded', async () => {
    w = await startWatchFixture({ files: { 'index.html': page('built 1') } });
    const { fx } = w;
    await waitFor('initial outputs', () => fx.exists('out/de/index.html') && fx.exists('out/fr/index.html'));
    await w.runner.settle();
    const out = fx.read('out/de/index.html');
    const mark = fx.mark();
    const resaved = page('built 2, a longer note');
    fs.writeFileSync(path.join(fx.src, 'index.html'), resaved);
    await waitFor(
      'the new bytes recorded',
      () => w!.state.getFile('docs', 'index.html')?.sha256 === sha256(resaved),
    );
    await waitFor('both outputs recorded against the new bytes', () =>
      ['de', 'fr'].every(
        (l) =>
          w!.state.db
            .prepare("SELECT 1 FROM jobs WHERE status = 'done' AND sha256 = ? AND output_path = ?")
            .get(sha256(resaved), `out/${l}/index.html`) !== undefined,
      ),
    );
    await w.runner.settle();
    expect(fx.uploads(mark)).toEqual([]);
    expect(fx.read('out/de/index.html')).toBe(out);
    fs.writeFileSync(path.join(fx.src, 'index.html'), page('built 2, a longer note', 'Hello'));
    await waitFor('the edit uploaded', () => fx.uploads(mark).length === 2);
  });
});
