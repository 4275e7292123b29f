// The segment path's writer refuses a translation that broke its source's placeholders, ICU
// structure or inline tags (docs/qa.md): a proxy in front of the local service rewrites each text
// request's answer as a hostile service would (tags stripped, each translation cut to a third), and
// every string format and Markdown then fails the checks: not delivered, kept in the quarantine,
// `qa-failed`, `sync` exits 1. Through the real service (no proxy) the same files are delivered.
import fs from 'node:fs';
import path from 'node:path';
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
