import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { readXliffUnits } from '../../src/xliff/reader.js';
import { git, setUser } from '../helpers/git-repo.js';
import { segmentsMapping } from '../segments/helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { withState } from './helpers.js';

// `xliff export --since REF|RUN` (docs/xliff.md): a translator gets only what changed. Since a git
// ref: the segments the sources did not have then (a paragraph edited, a document added); since a
// run: the documents later runs delivered. `--only changed` without --since is refused.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const plain = (u: ReturnType<typeof readXliffUnits>[number]) =>
  u.source.map((i) => (i.t === 'text' ? i.text : '')).join('');

describe('xliff export --since', () => {
  it('exports the segments changed since a git ref, or the documents delivered since a run', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: { 'guide.md': 'First paragraph.\n\nSecond paragraph.\n' },
    });
    const f = fx;
    git(f.dir, 'init', '-q', '-b', 'main');
    setUser(f.dir);
    expect((await f.sync()).failed).toEqual([]);
    git(f.dir, 'add', '-A');
    git(f.dir, 'commit', '-q', '-m', 'first');
    const firstRun = (await f.sync()).runId;

    f.write('src/guide.md', 'First paragraph.\n\nSecond paragraph, edited.\n');
    f.write('src/new.md', 'A new page.\n');
    expect((await f.sync()).failed).toEqual([]);
    const loaded = await f.load();
    const exportSince = (since: string, only: 'all' | 'changed' = 'changed') =>
      withState(f, (o) =>
        exportXliff(loaded, o.state, o.state.memory!, { out: path.join(f.dir, 'x.xlf'), only, since }),
      );

    await exportSince('main');
    expect(readXliffUnits(path.join(f.dir, 'x.xlf')).map(plain)).toEqual([
      'Second paragraph, edited.',
      'A new page.',
    ]);

    await exportSince(String(firstRun));
    expect(readXliffUnits(path.join(f.dir, 'x.xlf')).map(plain)).toEqual([
      'First paragraph.',
      'Second paragraph, edited.',
      'A new page.',
    ]);

    await expect(exportSince('no-such-ref')).rejects.toThrow(
      /--since no-such-ref: neither a run id nor a commit/,
    );
    await expect(
      withState(f, (o) =>
        exportXliff(loaded, o.state, o.state.memory!, { out: path.join(f.dir, 'x.xlf'), only: 'changed' }),
      ),
    ).rejects.toThrow(/--only changed needs --since/);
  });
});
