import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PART_SUFFIX } from '../../src/util/part-file.js';
import { segmentsMapping } from '../segments/helpers.js';
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

describe('a reviewed segment whose name leaves no room for the file beside it (segment path)', () => {
  it('delivers the edit taken in, then refuses the source change of that segment before buying it', async () => {
    // 250 bytes: `.locsync-new` beside it would be 262.
    const name = `${'n'.repeat(247)}.md`;
    const source = (second: string, third: string) => `# Title\n\n${second}.\n\n${third}.\n`;
    fx = await createFixture({
      files: { [name]: source('Second paragraph', 'Third paragraph') },
      manifest: { mappings: [segmentsMapping()] },
    });
    const f = fx;
    const output = `out/de/${name}`;
    expect((await f.sync()).failed).toEqual([]);
    // A reviewer corrects the second paragraph; the third's source changes: the edit is taken in,
    // the output written over with the person's wording kept (nothing goes beside it).
    const blocks = f.read(output).split('\n\n');
    blocks[1] = 'Zweiter Absatz, von einer Person geprüft';
    f.write(output, blocks.join('\n\n'));
    f.write(`src/${name}`, source('Second paragraph', 'Third paragraph, changed'));
    expect((await runCliOn(f, 'plan')).code).toBe(0);
    expect((await f.sync()).failed).toEqual([]);
    expect(f.read(output)).toContain('Zweiter Absatz, von einer Person geprüft');
    const absorbed = f.read(output);

    // Now the reviewed paragraph's source changes: its new translation would go beside the output.
    f.write(`src/${name}`, source('Second paragraph, changed', 'Third paragraph, changed'));
    const mark = f.mark();
    const advice =
      /output out\/de\/n+\.md holds a person's wording whose source changed, so out\/de\/n+\.locsync-new\.md goes beside it: .* is 262 bytes, longer than file systems allow \(255\): shorten the source name/;
    const plan = await runCliOn(f, 'plan');
    expect(plan.stdout + plan.stderr).toMatch(advice);
    expect(plan.code).not.toBe(0);
    const sync = await runCliOn(f, 'sync');
    expect(sync.code).not.toBe(0);
    expect(sync.stdout + sync.stderr).toMatch(advice);
    // Nothing bought, the person's wording where it was, nothing beside it.
    expect(
      f.service
        .requests()
        .slice(mark)
        .filter((r) => r.path === '/v2/translate'),
    ).toEqual([]);
    expect(f.read(output)).toBe(absorbed);
    expect(fs.readdirSync(path.join(f.dir, 'out', 'de'))).toEqual([name]);
  });
});

describe('a second edit of an output whose earlier version take-new set aside', () => {
  it('is refused before buying when the next backup name (-2) has no room', async () => {
    // 240 bytes: `.locsync-new` (252) and `.locsync-edited` (255) fit, `.locsync-edited-2` (257) not.
    const name = `${'n'.repeat(236)}.txt`;
    fx = await createFixture({ files: { [name]: 'Hello.\n' } });
    const f = fx;
    const output = `out/de/${name}`;
    expect((await f.sync()).failed).toEqual([]);
    // First conflict: resolved by take-new, the person's version set aside as .locsync-edited.
    f.write(output, 'Von einer Person korrigiert.\n');
    f.write(`src/${name}`, 'Hello again.\n');
    expect((await f.sync()).failed).toEqual([]);
    expect(f.exists(`out/de/${'n'.repeat(236)}.locsync-new.txt`)).toBe(true);
    const taken = await runCliOn(f, 'outputs', 'take-new', output);
    expect(taken.code, taken.stderr).toBe(0);
    expect(f.exists(`out/de/${'n'.repeat(236)}.locsync-edited.txt`)).toBe(true);

    // A second edit and source change: its take-new would need .locsync-edited-2.
    f.write(output, 'Wieder von einer Person korrigiert.\n');
    f.write(`src/${name}`, 'Hello for the third time.\n');
    const mark = f.mark();
    const advice =
      /output out\/de\/n+\.txt was edited by a person, so `locsync outputs take-new` sets it aside as out\/de\/n+\.locsync-edited-2\.txt: .* is 257 bytes, longer than file systems allow \(255\)/;
    const plan = await runCliOn(f, 'plan');
    expect(plan.stdout + plan.stderr).toMatch(advice);
    expect(plan.code).not.toBe(0);
    const sync = await runCliOn(f, 'sync');
    expect(sync.code).not.toBe(0);
    expect(sync.stdout + sync.stderr).toMatch(advice);
    expect(f.uploads(mark).map((u) => [u.filename, u.target_lang])).toEqual([[name, 'FR']]);
    expect(f.read(output)).toBe('Wieder von einer Person korrigiert.\n');
  });
});
