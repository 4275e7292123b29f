import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, defaultManifest, type Fixture } from './fixture.js';

// Output paths at the edges: absolute patterns, collisions whatever the order, outputs through links.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

function setMappings(f: Fixture, mappings: unknown[]): void {
  fs.writeFileSync(f.manifestPath, stringify({ ...defaultManifest(f.service.url), mappings }));
}

describe('output paths at the edges', () => {
  it('an absolute output pattern works like a relative one: the second run uploads nothing', async () => {
    fx = await createFixture({ files: { 'a.txt': 'A.\n', 'sub/b.txt': 'B.\n' } });
    const abs = path.join(fx.dir, 'shared', 'translated');
    setMappings(fx, [
      { name: 'docs', source: 'src', output: `${abs}/{lang}/{path}`, targets: [{ lang: 'de' }] },
    ]);
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    expect(first.translated).toBe(2);
    expect(fs.existsSync(path.join(abs, 'de', 'sub', 'b.txt'))).toBe(true);
    const mark = fx.mark();
    const second = await fx.sync();
    expect(fx.uploads(mark)).toEqual([]);
    expect(second.translated).toBe(0);
    expect(second.unchanged).toBe(2);
  });

  it('a collision never overwrites, whichever source comes first and with --only', async () => {
    fx = await createFixture({ files: { 'report.txt': 'Text report.\n' } });
    setMappings(fx, [
      { name: 'docs', source: 'src', output: 'out/{lang}/{stem}.txt', targets: [{ lang: 'de' }] },
    ]);
    await fx.sync();
    const before = fx.read('out/de/report.txt');
    // A new source that renders onto the existing output.
    fx.write('src/report.html', '<p>HTML report.</p>\n');
    const second = await fx.sync();
    expect(fx.read('out/de/report.txt')).toBe(before);
    expect(second.failed.map((f) => [f.file, f.kind])).toEqual([['report.html', 'collision']]);
    expect(second.failed[0]?.error).toMatch(/report\.txt/);

    // Two mappings rendering onto the same outputs, run one at a time with --only.
    fx.write('other/report.txt', 'Another report.\n');
    setMappings(fx, [
      { name: 'docs', source: 'src', output: 'out/{lang}/{stem}.txt', targets: [{ lang: 'de' }] },
      { name: 'more', source: 'other', output: 'out/{lang}/{stem}.{ext}', targets: [{ lang: 'de' }] },
    ]);
    const mark = fx.mark();
    const only = await fx.sync({ only: ['more'] });
    expect(fx.read('out/de/report.txt')).toBe(before);
    expect(only.failed.map((f) => f.kind)).toEqual(['collision']);
    await fx.sync({ only: ['docs'] });
    await fx.sync({ only: ['more'] });
    expect(fx.read('out/de/report.txt')).toBe(before);
    expect(fx.uploads(mark)).toEqual([]);
  });
});

describe('links in a source', () => {
  it('a link leading outside the source folder is skipped with a warning, unless the mapping allows it', async () => {
    fx = await createFixture({ files: { 'a.txt': 'A.\n', 'inner/b.txt': 'B.\n' } });
    const f = fx;
    // Outside the source: a file and a folder (as /etc/passwd and /etc would be).
    f.write('elsewhere/secret.txt', 'Not for translation.\n');
    f.write('elsewhere/dir/more.txt', 'Not for translation either.\n');
    fs.symlinkSync(path.join(f.dir, 'elsewhere/secret.txt'), path.join(f.src, 'secret.txt'));
    fs.symlinkSync(path.join(f.dir, 'elsewhere/dir'), path.join(f.src, 'dir'));
    // Inside the source: followed as before.
    fs.symlinkSync(path.join(f.src, 'inner/b.txt'), path.join(f.src, 'b-again.txt'));

    const names = (since?: number) => [...new Set(f.uploads(since).map((u) => u.filename))].sort();
    const first = await f.sync();
    // b.txt and the link to it hold one content: uploaded once per target under either name.
    expect(names().filter((n) => n !== 'b.txt' && n !== 'b-again.txt')).toEqual(['a.txt']);
    expect(
      first.skipped
        .filter((s) => s.reason === 'link-outside')
        .map((s) => s.file)
        .sort(),
    ).toEqual(['dir', 'secret.txt']);
    expect(first.skipped.find((s) => s.file === 'secret.txt')?.message).toContain(
      path.join(f.dir, 'elsewhere/secret.txt'),
    );
    expect(f.exists('out/de/secret.txt')).toBe(false);
    expect(f.exists('out/de/b-again.txt')).toBe(true);

    setMappings(f, [
      {
        name: 'docs',
        source: 'src',
        output: 'out/{lang}/{path}',
        targets: [{ lang: 'de' }],
        links_outside_source: 'follow',
      },
    ]);
    const mark = f.mark();
    const second = await f.sync();
    expect(second.skipped.filter((s) => s.reason === 'link-outside')).toEqual([]);
    expect(names(mark)).toEqual(['more.txt', 'secret.txt']);
    expect(f.exists('out/de/dir/more.txt')).toBe(true);
  });
});

describe('links in an output folder', () => {
  it('an output sub-folder linked outside the output root is never written through, nor paid for', async () => {
    fx = await createFixture({ files: { 'a.txt': 'A.\n', 'sub/b.txt': 'B.\n' } });
    const f = fx;
    setMappings(f, [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }]);
    fs.mkdirSync(path.join(f.dir, 'out/de'), { recursive: true });
    fs.mkdirSync(path.join(f.dir, 'elsewhere'));
    fs.symlinkSync(path.join(f.dir, 'elsewhere'), path.join(f.dir, 'out/de/sub'));

    const first = await f.sync();
    expect(f.uploads().map((u) => u.filename)).toEqual(['a.txt']);
    expect(first.failed.map((x) => [x.file, x.kind])).toEqual([['sub/b.txt', 'path-escape']]);
    expect(first.failed[0]?.error).toContain(path.join(f.dir, 'elsewhere'));
    expect(fs.readdirSync(path.join(f.dir, 'elsewhere'))).toEqual([]);

    // The link replaced by a real folder: translated then, once.
    fs.unlinkSync(path.join(f.dir, 'out/de/sub'));
    const mark = f.mark();
    const second = await f.sync();
    expect(f.uploads(mark).map((u) => u.filename)).toEqual(['b.txt']);
    expect(second.failed).toEqual([]);
    expect(f.exists('out/de/sub/b.txt')).toBe(true);
  });
});
