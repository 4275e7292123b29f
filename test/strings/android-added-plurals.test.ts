import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

// What a user gets in the plural forms an English source lacks (Polish and Russian `few` and
// `many`, Arabic `zero`, `two`, `few`, `many`): each is written from the machine translation of the
// source's own form of that name, else of its `other` text, as that text was sent to the service
// (docs/strings/README.md, "Plural forms"); the added forms are not sent or billed on their own, the
// placeholders stay, and the output checks, `status` and `check` pass them (exit 0).

const SOURCE = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <plurals name="photos">
        <item quantity="one">%d photo in the album</item>
        <item quantity="other">%d photos in the album</item>
    </plurals>
</resources>
`;

const FORMS: Record<string, string[]> = {
  pl: ['one', 'few', 'many', 'other'],
  ru: ['one', 'few', 'many', 'other'],
  ar: ['zero', 'one', 'two', 'few', 'many', 'other'],
};

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const itemsOf = (xml: string) =>
  new Map([...xml.matchAll(/<item quantity="(\w+)">([^<]*)<\/item>/g)].map((m) => [m[1]!, m[2]!]));

describe('Android plural forms the target adds to an English source', () => {
  it('take the translation of the source form they stand for; two texts are sent; every check passes', async () => {
    fx = await createFixture({
      files: { 'values/strings.xml': SOURCE },
      manifest: {
        mappings: [
          {
            name: 'android',
            source: 'src/values',
            output: 'out/values-{lang_android}/{name}',
            method: 'segments',
            source_lang: 'en',
            targets: Object.keys(FORMS).map((lang) => ({ lang })),
          },
        ],
      },
    });
    const sync = await runCliOn(fx, 'sync');
    expect(sync.code, sync.stderr).toBe(0);
    const sent = fx.service.requests().flatMap((r) => (r.path === '/v2/translate' && r.text ? [r.text] : []));
    // The source's two forms, once per target: the added forms cost nothing.
    expect(sent.map((t) => [t.target_lang.toLowerCase(), t.texts]).sort()).toEqual(
      Object.keys(FORMS)
        .map((l) => [l, 2])
        .sort(),
    );
    for (const [lang, forms] of Object.entries(FORMS)) {
      const items = itemsOf(fx.read(`out/values-${lang}/strings.xml`));
      expect([...items.keys()], lang).toEqual(forms);
      const one = items.get('one')!;
      const other = items.get('other')!;
      // Machine wording of each source text, placeholder in place, not the English.
      for (const t of [one, other]) {
        expect(t, lang).toMatch(/^%d \S/);
        expect(t, lang).not.toMatch(/photo|album/);
      }
      expect(one, `${lang}: one is the singular's translation`).not.toBe(other);
      for (const f of forms.filter((x) => x !== 'one' && x !== 'other'))
        expect(items.get(f), `${lang} ${f}: the translation of the source's other`).toBe(other);
    }
    const status = await runCliOn(fx, 'status');
    expect(status.code, status.stdout).toBe(0);
    const check = await runCliOn(fx, 'check');
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/Checked 3 outputs: 3 passed, 0 flagged, 0 failed/);
  }, 180_000);
});
