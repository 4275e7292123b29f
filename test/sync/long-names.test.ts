import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PART_SUFFIX } from '../../src/util/part-file.js';
import { createFixture, runCliOn, type Fixture } from './fixture.js';

// Any name the filesystem accepts can be delivered: the partial file beside an output must not be
// longer than the longest name.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** 78 CJK characters and '.txt': 238 bytes, a legal name with no room for a longer one beside it. */
const LONG = `${'翻訳'.repeat(39)}.txt`;

describe('long file names', () => {
  it('delivers a document whose legal name leaves no room for a longer one (both targets, then a copy)', async () => {
    expect(Buffer.byteLength(LONG)).toBe(238);
    fx = await createFixture({ files: { [LONG]: 'Hello.\n' } });
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    expect(first.translated).toBe(2);
    expect(fx.read(`out/de/${LONG}`)).not.toBe('');
    expect(fx.exists(`out/fr/${LONG}`)).toBe(true);
    // No partial file left behind.
    for (const lang of ['de', 'fr'])
      expect(fs.readdirSync(path.join(fx.dir, 'out', lang)).filter((n) => n.endsWith(PART_SUFFIX))).toEqual(
        [],
      );
    // The same content under a second long name is reused: copied through a partial file too.
    fx.write(`src/copy/${LONG}`, 'Hello.\n');
    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(second.reused).toBe(2);
    expect(fx.read(`out/de/copy/${LONG}`)).toBe(fx.read(`out/de/${LONG}`));
  });
});

describe('a name the output folder cannot hold', () => {
  it('is refused before any upload, with advice, on every run, while the other documents go on', async () => {
    // A legal source name whose output name (the pattern adds to it) is over the 255-byte limit.
    const name = `${'n'.repeat(240)}.txt`;
    fx = await createFixture({
      files: { [name]: 'Hello.\n', 'ok.txt': 'Fine.\n' },
      manifest: {
        mappings: [
          {
            name: 'docs',
            source: 'src',
            output: 'out/{lang}/{stem}.translated-{lang}.{ext}',
            targets: [{ lang: 'de' }],
          },
        ],
      },
    });
    const f = fx;
    for (let run = 0; run < 2; run++) {
      const s = await f.sync();
      expect(s.failed.map((x) => [x.file, x.kind])).toEqual([[name, 'unwritable-name']]);
      expect(s.failed[0]?.error).toMatch(/258 bytes, longer than file systems allow \(255\): shorten/);
    }
    expect(f.uploads().map((u) => u.filename)).toEqual(['ok.txt']);
    expect(f.exists('out/de/ok.translated-de.txt')).toBe(true);
  });
});

describe('an edited output whose name leaves no room for the files beside it', () => {
  it('is refused by plan and sync before anything is bought; the unedited target still delivers', async () => {
    // 251 bytes: a legal output name, but `.locsync-new` beside it would be 263.
    const name = `${'n'.repeat(247)}.txt`;
    fx = await createFixture({ files: { [name]: 'Hello.\n' } });
    const f = fx;
    expect((await f.sync()).failed).toEqual([]);
    expect(f.exists(`out/de/${name}`)).toBe(true);
    f.write(`out/de/${name}`, 'Von einer Person korrigiert.\n');
    f.write(`src/${name}`, 'Hello again.\n');
    const mark = f.mark();

    const advice =
      /was edited by a person, so out\/de\/n+\.locsync-new\.txt goes beside it: .* is 263 bytes, longer than file systems allow \(255\): shorten the source name/;
    const plan = await runCliOn(f, 'plan');
    expect(plan.stdout + plan.stderr).toMatch(advice);
    expect(plan.code).not.toBe(0);
    const sync = await runCliOn(f, 'sync');
    expect(sync.code).not.toBe(0);
    expect(sync.stdout + sync.stderr).toMatch(advice);
    // Only the French output, which nobody edited, was bought; the person's German text stays.
    expect(f.uploads(mark).map((u) => [u.filename, u.target_lang])).toEqual([[name, 'FR']]);
    expect(f.read(`out/de/${name}`)).toBe('Von einer Person korrigiert.\n');
    expect(fs.readdirSync(path.join(f.dir, 'out', 'de'))).toEqual([name]);
  });
});
