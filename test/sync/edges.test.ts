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
