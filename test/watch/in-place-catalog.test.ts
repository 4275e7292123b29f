import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

// watch on a String Catalog whose targets are written into it (docs/strings/xcstrings.md): the
// watch sees its own writes as the catalog saved again with its source unchanged, so it delivers
// each target once and then leaves the file alone; a changed source string is sent again.

let w: WatchFixture | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const catalog = (save: string) =>
  `${JSON.stringify(
    {
      sourceLanguage: 'en',
      strings: {
        Open: { localizations: { en: { stringUnit: { state: 'translated', value: 'Open the file' } } } },
        Save: { localizations: { en: { stringUnit: { state: 'translated', value: save } } } },
      },
      version: '1.0',
    },
    null,
    2,
  ).replaceAll('": ', '" : ')}\n`;

type Catalog = {
  strings: Record<string, { localizations: Record<string, { stringUnit: { value: string } }> }>;
};
const REL = 'src/App/Localizable.xcstrings';

describe('watch: a String Catalog written into itself', () => {
  it('delivers each target once, then settles; a changed string is sent again', async () => {
    w = await startWatchFixture({
      files: { 'App/Localizable.xcstrings': catalog('Save the file') },
      manifest: () => ({
        mappings: [
          {
            name: 'app',
            source: 'src/App',
            include: ['Localizable.xcstrings'],
            output: 'src/App/{path}',
            method: 'segments',
            source_lang: 'en',
            targets: [{ lang: 'de' }, { lang: 'ja' }],
          },
        ],
      }),
    });
    const { fx } = w;
    const translate = () =>
      fx.service.requests().filter((r) => r.path === '/v2/translate' && r.status === 200);
    const langs = () => Object.keys((JSON.parse(fx.read(REL)) as Catalog).strings['Save']!.localizations);
    await waitFor('de and ja written into the catalog', () => ['de', 'ja'].every((l) => langs().includes(l)));
    await w.runner.settle();
    // Its own writes come back as change events: give them time to be seen and settled.
    await sleep(1500);
    await w.runner.settle();
    const settled = fx.read(REL);
    const sent = translate().length;
    expect(sent).toBe(2); // one request per language, nothing again for the writes it saw
    await sleep(1500);
    await w.runner.settle();
    expect(fx.read(REL)).toBe(settled);
    expect(translate().length).toBe(sent);

    // A person changes one source string (in the catalog as it is now, with de and ja in it).
    const before = JSON.parse(settled) as Catalog;
    const edited = JSON.parse(settled) as Catalog;
    edited.strings['Save']!.localizations['en']!.stringUnit.value = 'Save the document';
    fs.writeFileSync(
      path.join(fx.dir, REL),
      `${JSON.stringify(edited, null, 2).replaceAll('": ', '" : ')}\n`,
    );
    await waitFor('the changed string sent for each language', () => translate().length === sent + 2);
    await waitFor('both entries rewritten', () => {
      const c = JSON.parse(fx.read(REL)) as Catalog;
      return ['de', 'ja'].every(
        (l) =>
          c.strings['Save']!.localizations[l]!.stringUnit.value !==
          before.strings['Save']!.localizations[l]!.stringUnit.value,
      );
    });
    await w.runner.settle();
    await sleep(1500);
    await w.runner.settle();
    expect(translate().length).toBe(sent + 2);
    const after = JSON.parse(fx.read(REL)) as Catalog;
    expect(after.strings['Open']!.localizations['de']!.stringUnit.value).toBe(
      (JSON.parse(settled) as Catalog).strings['Open']!.localizations['de']!.stringUnit.value,
    );
  });
});
