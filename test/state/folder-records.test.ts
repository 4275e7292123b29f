import { afterEach, describe, expect, it } from 'vitest';
import { stateBackends } from '../helpers/backends.js';

// What the planner's per-folder fast path asks of a state, on every backend: the snapshot keeps
// each folder's digest, and the records of some folders are read without the others.

const backends = await stateBackends();

describe.each(backends)('folder records and digests on $name', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  it('reads the files directly in the folders asked, not in their subfolders nor look-alikes', async () => {
    const opened = await backend.open({ worker: 'sync' });
    cleanups.push(opened.close);
    const files = opened.state.files;
    const paths = [
      'top.txt',
      'd/x.txt',
      'd/y.txt',
      'd/sub/z.txt',
      'd0/w.txt',
      'd.txt',
      'e_%/v.txt',
      'e/u.txt',
    ];
    for (const [i, rel] of paths.entries())
      await files.put({ mapping: 'docs', rel_path: rel, size: i, mtime_ms: 1000 + i, sha256: `sha-${i}` });
    await files.put({ mapping: 'other', rel_path: 'd/x.txt', size: 9, mtime_ms: 9, sha256: 'sha-o' });
    await files.verify('docs', 7, ['d/x.txt']);

    const keys = async (folders: string[]) => [...(await files.listedIn('docs', folders)).keys()].sort();
    expect(await keys(['d'])).toEqual(['d/x.txt', 'd/y.txt']);
    expect(await keys([''])).toEqual(['d.txt', 'top.txt']);
    expect(await keys(['d/sub', 'e_%'])).toEqual(['d/sub/z.txt', 'e_%/v.txt']);
    expect(await keys(['none'])).toEqual([]);
    // As the bulk read has them: path, size, mtime, verified mark.
    expect((await files.listedIn('docs', ['d'])).get('d/x.txt')).toEqual(
      (await files.listed('docs')).get('d/x.txt'),
    );
    expect((await files.listedIn('docs', ['d'])).get('d/x.txt')).toEqual(['d/x.txt', 1, 1001, 7, null, null]);
  });

  it('keeps the folder digests of a snapshot, and none for a snapshot taken without them', async () => {
    const opened = await backend.open({ worker: 'sync' });
    cleanups.push(opened.close);
    const files = opened.state.files;
    const folders = new Map([
      ['', 'digest-top'],
      ['d', 'digest-d'],
      ['__proto__', 'digest-odd'],
    ]);
    await files.setSnapshot('docs', { digest: 'd', outputDirs: ['out/de'], outputsDigest: 'o', folders }, 3);
    await files.setSnapshot('plain', { digest: 'p', outputDirs: [], outputsDigest: 'o' }, 0);
    await opened.closeThis();
    const { state: next } = await opened.reopen({ worker: 'sync' });
    expect((await next.files.snapshot('docs'))?.folders).toEqual(folders);
    expect(await next.files.snapshot('plain')).toEqual({ digest: 'p', outputDirs: [], outputsDigest: 'o' });
    // A changed record drops the snapshot, folder digests with it.
    await next.files.put({ mapping: 'docs', rel_path: 'd/x.txt', size: 1, mtime_ms: 2, sha256: 's' });
    expect(await next.files.snapshot('docs')).toBeUndefined();
  });
});
