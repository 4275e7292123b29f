// A segment-path source saved again without a change to its content: the content digest
// (docs/content-digest.md) makes it re-saved, so nothing is sent and its output stays as it was.
import { expect } from 'vitest';
import { textRequests } from '../segments/helpers.js';
import { createFixture } from '../sync/fixture.js';

/** Syncs `name` holding `text` into German, then again after it was saved as `resaved`. */
export async function expectResavedUnchanged(name: string, text: string, resaved: string): Promise<void> {
  const fx = await createFixture({
    files: { [name]: text },
    manifest: {
      mappings: [
        {
          name: 'seg',
          source: 'src',
          source_lang: 'en',
          output: 'out/{lang}/{path}',
          method: 'segments',
          targets: [{ lang: 'de' }],
        },
      ],
    },
  });
  try {
    expect((await fx.sync()).translated).toBe(1);
    const out = fx.read(`out/de/${name}`);
    expect(resaved).not.toBe(text);
    fx.write(`src/${name}`, resaved);
    const mark = fx.mark();
    const again = await fx.sync();
    expect([again.translated, again.resaved, again.failed]).toEqual([0, 1, []]);
    expect(textRequests(fx, mark)).toEqual([]);
    expect(fx.read(`out/de/${name}`)).toBe(out);
  } finally {
    await fx.close();
  }
}
