import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sample } from '../helpers/samples.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

// `locsync check [paths]` (docs/qa.md): the checks on outputs already delivered, without the
// service; sources found through the state, the mappings or --source; verdicts recorded for status.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('locsync check', () => {
  it('checks delivered outputs without the service, finds sources through the state, the mapping or --source, and records the verdicts', async () => {
    fx = await createFixture({
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
      files: { 'index.html': sample('web/index.html'), 'notes.txt': sample('readme.txt') },
    });
    await fx.sync();
    const mark = fx.mark();

    // Every delivered output passes.
    const all = await runCliOn(fx, 'check');
    expect(all.stdout).toContain('Checked 2 outputs: 2 passed, 0 flagged, 0 failed');
    expect(all.code).toBe(0);

    // An output replaced since by a copy of its source (someone pasted the English back): failed,
    // left in place, recorded; status then names it and exits 1.
    fx.write('out/de/notes.txt', sample('readme.txt'));
    const one = await runCliOn(fx, 'check', 'out/de');
    expect(one.code).toBe(1);
    expect(one.stdout).toMatch(
      /^failed: out\/de\/notes\.txt\n {2}untranslated: the output is the source unchanged/m,
    );
    expect(fx.exists('out/de/notes.txt')).toBe(true);
    const status = await runCliOn(fx, 'status', '--no-scan');
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(
      /Failed the output checks \(1;[^\n]*\n {2}out\/de\/notes\.txt \(docs\/notes\.txt -> de\)/,
    );

    // A file the state does not know, found through the mapping (its source renders its path).
    fx.write('src/extra.txt', 'A line of text that nobody translated into German yet.\nAnd a second line.\n');
    fx.write(
      'out/de/extra.txt',
      'A line of text that nobody translated into German yet.\nAnd a second line.\n',
    );
    const json = JSON.parse((await runCliOn(fx, 'check', 'out/de/extra.txt', '--json')).stdout) as {
      outputs: Array<{ output: string; source: string; outcome: string; findings: Array<{ check: string }> }>;
    };
    expect(json.outputs).toMatchObject([
      { output: 'out/de/extra.txt', source: path.join(fx.dir, 'src/extra.txt'), outcome: 'failed' },
    ]);

    // A file from elsewhere with --source; one whose source is known nowhere is a usage error.
    fx.write('vendor/de.html', fx.read('out/de/index.html'));
    const given = await runCliOn(
      fx,
      'check',
      'vendor/de.html',
      '--source',
      'src/index.html',
      '--target',
      'de',
    );
    expect(given.stdout).toContain('Checked 1 outputs: 1 passed');
    const unknown = await runCliOn(fx, 'check', 'vendor/de.html');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no source known for vendor/de.html');

    // No request reached the service.
    expect(fx.documentRequests(mark)).toEqual([]);
  });
});
