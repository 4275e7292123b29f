// The segment path's writer refuses a translation that broke its source's placeholders, ICU
// structure or inline tags (docs/qa.md): a proxy in front of the local service rewrites each text
// request's answer as a hostile service would (tags stripped, each translation cut to a third), and
// every string format and Markdown then fails the checks: not delivered, kept in the quarantine,
// `qa-failed`, `sync` exits 1. Through the real service (no proxy) the same files are delivered.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from '@formatjs/icu-messageformat-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { quarantineDirOf } from '../../src/qa/quarantine.js';
import {
  clientThrough,
  rewritingProxy,
  type Rewrite,
  type RewritingProxy,
} from '../helpers/rewriting-proxy.js';
import { editManifest } from '../segments/helpers.js';
import { API_KEY, createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

/** Each source's output (a .pot is translated into a .po). */
const outputOf = (file: string) => `out/de/${file.replace(/\.pot$/, '.po')}`;

const SOURCES: Record<string, string> = {
  'en.json':
    '{\n  "greeting": "Hello, {{name}}, you have new mail!",\n  "files": "{count, plural, one {# file was deleted} other {# files were deleted}}"\n}\n',
  'en.yml': "en:\n  too_long: 'is too long (maximum is %{count} characters)'\n",
  'messages.pot':
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n#, c-format\nmsgid "Copied %1$d of %2$d photos to the album"\nmsgstr ""\n',
  'strings.xml':
    '<?xml version="1.0" encoding="utf-8"?>\n<resources>\n    <string name="share">Tap <b>Share now</b> to send the photo</string>\n</resources>\n',
  'Localizable.strings': '"shared" = "This album is shared with %@ and the family";\n',
  'messages.properties': 'welcome = Welcome back, {0}, your photos are ready\n',
  'app_en.arb':
    '{\n  "photoCount": "{count, plural, =0{No photos in the album} other{{count} photos in the album}}"\n}\n',
  'guide.md': '# Guide\n\nPress **Save the document** to keep the `config.yml` file on the disk.\n',
  'en.toml': '[settings]\ngreeting = "Hello, %s, your photos are ready to be shared"\n',
  'Resources.resx':
    '<?xml version="1.0" encoding="utf-8"?>\n<root>\n  <data name="Welcome" xml:space="preserve">\n    <value>Welcome back, {0}, your photos are ready</value>\n  </data>\n</root>\n',
  'en.jsonc': '// settings\n{\n  "saved": "Saved %d files to the album, as you asked", // a count\n}\n',
};

const STRIP_TAGS: Rewrite = (t) => t.replace(/<\/?g[^<>]*>|<x[^<>]*\/>/g, '');
const CUT_TO_A_THIRD: Rewrite = (t) => [...t].slice(0, Math.ceil([...t].length / 3)).join('');

let fx: Fixture | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await fx?.close();
  fx = proxy = undefined;
});

const MAPPINGS = {
  mappings: [
    {
      name: 'strings',
      source: 'src',
      source_lang: 'en',
      method: 'segments',
      output: 'out/{lang}/{path}',
      targets: [{ lang: 'de' }],
    },
  ],
};

describe('the segment path refuses broken placeholders, ICU structure and inline tags', () => {
  it.each([
    ['tags stripped', STRIP_TAGS],
    ['each translation cut to a third', CUT_TO_A_THIRD],
  ])('%s: every string format and Markdown fails the checks, quarantined', async (_, rewrite) => {
    fx = await createFixture({ manifest: MAPPINGS, files: SOURCES });
    proxy = await rewritingProxy(fx.service.url, rewrite);
    const summary = await fx.sync({ client: clientThrough(proxy.url, API_KEY) });
    const failed = new Map(summary.failed.map((f) => [f.file, f]));
    const quarantine = quarantineDirOf((await fx.load()).statePath);
    for (const file of Object.keys(SOURCES)) {
      expect(failed.get(file)?.kind, `${file}: ${JSON.stringify(summary.failed)}`).toBe('qa-failed');
      expect(failed.get(file)?.error).toMatch(/placeholders or inline tags/);
      expect(fx.exists(outputOf(file)), file).toBe(false);
      expect(fs.existsSync(path.join(quarantine, outputOf(file))), file).toBe(true);
    }
  });

  it('sync exits 1 on them; the real service’s answers are delivered', async () => {
    fx = await createFixture({ manifest: MAPPINGS, files: SOURCES });
    proxy = await rewritingProxy(fx.service.url, STRIP_TAGS);
    const real = fx.service.url;
    editManifest(fx, (m) => ((m.service as Record<string, unknown>).url = proxy!.url));
    const hostile = await runCliOn(fx, 'sync');
    expect(hostile.code, hostile.stderr + hostile.stdout).toBe(1);
    expect(hostile.stdout + hostile.stderr).toMatch(/qa-failed|output check failed \(placeholders\)/);
    // The retry through the real service sends them again and delivers every one.
    editManifest(fx, (m) => ((m.service as Record<string, unknown>).url = real));
    const summary = await fx.sync({ retryFailedQa: true });
    expect(summary.failed).toEqual([]);
    for (const file of Object.keys(SOURCES)) expect(fx.exists(outputOf(file)), file).toBe(true);
    expect(fx.read('out/de/strings.xml')).toMatch(/<b>[^<]+<\/b>/);
  });
});

// The ICU message structure: the service answered with every inline tag in place, but the text it
// put between them changed the message (an arm added, a `#` quoted away by an apostrophe, an
// argument the source does not have, an `other` arm swallowed, a message that no longer parses).
// Each output fails the checks, named with its file and key, and the next run does not buy it
// again unless asked (--retry-failed-qa).
const ICU_FILES: Record<string, string> = {
  'en.json':
    '{\n  "deleted": "{count, plural, one {Only # file was deleted} other {# files were deleted}}",\n  "liked": "{gender, select, female {She liked your photo} male {He liked your photo} other {They liked your photo}}"\n}\n',
  'app_en.arb':
    '{\n  "photoCount": "{count, plural, =0{No photos in the album} other{{count} photos in the album}}"\n}\n',
  'en.yml': 'en:\n  shared: "{name} shared {count, plural, one {# album} other {# albums}} with you"\n',
};

/** Rewrites text piece `piece` of the translation of the value whose source contains `marker`. */
const inPiece =
  (marker: string, piece: number, edit: (text: string) => string): Rewrite =>
  (t, sent) =>
    sent.includes(marker)
      ? t.replace(
          new RegExp(`(<g id="${piece}">)([^<]*)(</g>)`),
          (_, open, text, close) => open + edit(text) + close,
        )
      : t;

const CASES: Array<{ name: string; file: string; key: string; rewrite: Rewrite; problem: RegExp }> = [
  {
    name: 'an arm the source does not have',
    file: 'en.json',
    key: 'liked',
    rewrite: inPiece('She liked', 3, (t) => `${t}} divers {${t}`),
    problem: /arm "divers" of \{gender, select\} the source does not have/,
  },
  {
    name: 'a # quoted away by an apostrophe',
    file: 'en.json',
    key: 'deleted',
    rewrite: (t, sent) =>
      inPiece('Only', 3, (x) => `'${x}`)(inPiece('Only', 1, (x) => `${x}'`)(t, sent), sent),
    problem: /# missing in the "one" arm of \{count, plural\}/,
  },
  {
    name: 'an argument the source does not have',
    file: 'app_en.arb',
    key: 'photoCount',
    rewrite: inPiece('No photos', 3, (t) => `${t} {Anzahl}`),
    problem: /\{Anzahl\} the source does not have/,
  },
  {
    name: 'a select whose other arm is swallowed',
    file: 'en.json',
    key: 'liked',
    rewrite: inPiece('She liked', 3, (t) => `${t}'`),
    problem: /no longer parses/,
  },
  {
    name: 'a message that no longer parses',
    file: 'en.yml',
    key: 'shared',
    rewrite: inPiece('shared', 3, (t) => `${t} {`),
    problem: /no longer parses/,
  },
];

/** Text requests the local service answered since log position `mark`. */
const textRequests = (f: Fixture, mark: number) =>
  f.service
    .requests()
    .slice(mark)
    .filter((r) => r.path.startsWith('/v2/translate')).length;

describe('the segment path refuses a translation that broke its ICU message structure', () => {
  it.each(CASES)('$name: the output fails the checks, named by file and key', async (c) => {
    fx = await createFixture({ manifest: MAPPINGS, files: { [c.file]: ICU_FILES[c.file] as string } });
    proxy = await rewritingProxy(fx.service.url, c.rewrite);
    const summary = await fx.sync({ client: clientThrough(proxy.url, API_KEY) });
    expect(summary.failed, JSON.stringify(summary)).toHaveLength(1);
    const failed = summary.failed[0]!;
    expect(failed.file).toBe(c.file);
    expect(failed.kind, failed.error).toBe('qa-failed');
    expect(failed.error).toMatch(c.problem);
    expect(failed.error).toContain(`key ${c.key}`);
    expect(fx.exists(`out/de/${c.file}`)).toBe(false);
    const quarantine = quarantineDirOf((await fx.load()).statePath);
    expect(fs.existsSync(path.join(quarantine, `out/de/${c.file}`))).toBe(true);
    // The next run, through the real service, does not buy it again without being asked.
    const mark = fx.mark();
    const again = await fx.sync();
    expect(textRequests(fx, mark)).toBe(0);
    expect(again.failed.map((f) => f.kind)).not.toContain('done');
    expect(fx.exists(`out/de/${c.file}`)).toBe(false);
  });

  it('sync exits 1 naming the file and key; a retry through the real service delivers', async () => {
    fx = await createFixture({ manifest: MAPPINGS, files: ICU_FILES });
    const rewrite = (t: string, sent: string) =>
      CASES.reduce((out, c) => (c.name.startsWith('an arm') ? c.rewrite(out, sent) : out), t);
    proxy = await rewritingProxy(fx.service.url, rewrite);
    const real = fx.service.url;
    editManifest(fx, (m) => ((m.service as Record<string, unknown>).url = proxy!.url));
    const hostile = await runCliOn(fx, 'sync');
    const said = hostile.stdout + hostile.stderr;
    expect(hostile.code, said).toBe(1);
    expect(said).toMatch(/en\.json/);
    expect(said).toMatch(/key liked/);
    expect(fx.exists('out/de/en.json')).toBe(false);
    expect(fx.exists('out/de/app_en.arb')).toBe(true);
    editManifest(fx, (m) => ((m.service as Record<string, unknown>).url = real));
    const summary = await fx.sync({ retryFailedQa: true });
    expect(summary.failed).toEqual([]);
    for (const file of Object.keys(ICU_FILES)) expect(fx.exists(`out/de/${file}`), file).toBe(true);
    // What is delivered is an ICU message with the source's arms.
    const de = JSON.parse(fx.read('out/de/en.json')) as Record<string, string>;
    const liked = parse(de.liked as string, { ignoreTag: true })[0] as { options: object };
    expect(Object.keys(liked.options).sort()).toEqual(['female', 'male', 'other']);
  });
});
