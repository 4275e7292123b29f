import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listSourceFiles } from '../../src/sync/plan/list-sources.js';
import { FAILED, GONE, StatHelper } from '../../src/sync/plan/stat-helper.js';
import { STAT_THREAD_AFTER } from '../../src/sync/plan/walk-folders.js';

// A large walk stats its plain files on a second thread (stat-helper.ts, issue 51). Whatever the
// thread does, the listing is the one a walk on one thread makes: every file once, with its own
// size, mtime, inode and ctime, links followed on the walk's thread, nothing left behind at the end.

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-stat-thread-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const FOLDERS = 120;
const PER_FOLDER = Math.ceil((STAT_THREAD_AFTER * 3) / FOLDERS);

/** FOLDERS folders of PER_FOLDER files, a linked file (in the last folder: stat-ed on the walk's
 * thread), a linked folder and an unsupported file; answers the paths a listing must hold. */
function writeTree(): string[] {
  const rels: string[] = [];
  for (let d = 0; d < FOLDERS; d++) {
    fs.mkdirSync(path.join(dir, 'src', `d${d}`), { recursive: true });
    for (let f = 0; f < PER_FOLDER; f++) {
      const rel = `d${d}/f${f}.txt`;
      fs.writeFileSync(path.join(dir, 'src', rel), 'x'.repeat(d + f));
      rels.push(rel);
    }
  }
  fs.mkdirSync(path.join(dir, 'elsewhere'));
  fs.writeFileSync(path.join(dir, 'elsewhere', 'linked.txt'), 'linked');
  fs.symlinkSync(path.join(dir, 'src', 'd0', 'f0.txt'), path.join(dir, 'src', `d${FOLDERS - 1}`, 'link.txt'));
  fs.symlinkSync(path.join(dir, 'src', 'd1'), path.join(dir, 'src', 'again'));
  fs.writeFileSync(path.join(dir, 'src', 'd5', 'picture.xyz'), 'not a document');
  rels.push(`d${FOLDERS - 1}/link.txt`, ...Array.from({ length: PER_FOLDER }, (_, f) => `again/f${f}.txt`));
  return rels.sort();
}

describe('the stat thread of a large walk', () => {
  it('lists every file once with its own numbers, as a walk on one thread does', async () => {
    const rels = writeTree();
    const offers = vi.spyOn(StatHelper.prototype, 'offer');
    for (let round = 0; round < 3; round++) {
      offers.mockClear();
      const listed = await listSourceFiles(path.join(dir, 'src'), [], []);
      // The thread was started and took folders: this walk is the one under test.
      expect(offers.mock.results.filter((r) => r.value === true).length).toBeGreaterThan(0);
      expect(listed.problems).toEqual([]);
      expect(listed.unsupported.map((u) => u.relPath)).toEqual(['d5/picture.xyz']);
      expect(listed.count).toBe(rels.length);
      const listedRels = listed.files.map((f) => f.relPath);
      expect(listedRels.filter((r) => !rels.includes(r))).toEqual([]);
      expect(rels.filter((r) => !listedRels.includes(r))).toEqual([]);
      expect(listedRels).toEqual(rels);
      for (const f of listed.files) {
        const st = fs.statSync(f.absPath);
        expect([f.size, f.mtimeMs, f.ino, f.ctimeMs], f.relPath).toEqual([
          st.size,
          st.mtimeMs,
          st.ino,
          st.ctimeMs,
        ]);
      }
    }
  });

  it('lists the folders in the order of their first file, each folder once, its names sorted', async () => {
    for (const rel of ['a/c.txt', 'a/b.txt', 'a/b/c.txt', 'top.txt', 'a/b/a.txt'].map((r) => `src/${r}`)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), 'x');
    }
    const listed = await listSourceFiles(path.join(dir, 'src'), [], []);
    expect(listed.files.map((f) => f.relPath)).toEqual([
      'a/b.txt',
      'a/b/a.txt',
      'a/b/c.txt',
      'a/c.txt',
      'top.txt',
    ]);
    expect(listed.folders.map((f) => [f.rel, f.names])).toEqual([
      ['a', ['b.txt', 'c.txt']],
      ['a/b', ['a.txt', 'c.txt']],
      ['', ['top.txt']],
    ]);
  });

  it('answers a file gone as gone and one that cannot be stat-ed with its error code', async () => {
    fs.writeFileSync(path.join(dir, 'here.txt'), 'four');
    const helper = StatHelper.start();
    expect(helper).toBeDefined();
    const names = ['here.txt', 'gone.txt', `${'x'.repeat(300)}.txt`];
    expect(helper!.offer({ rel: '', prefix: dir + path.sep, names })).toBe(true);
    const { answered, unanswered } = await helper!.finish();
    expect(unanswered).toEqual([]);
    expect(answered).toHaveLength(1);
    const [a] = answered;
    expect(a!.names).toEqual(names);
    expect(a!.stats[0]).toBe(4);
    expect(a!.stats[2]).toBe(fs.statSync(path.join(dir, 'here.txt')).ino);
    expect(a!.stats[4]).toBe(GONE);
    expect(a!.stats[8]).toBe(FAILED);
    expect(a!.codes).toEqual({ 2: 'ENAMETOOLONG' });
  });

  it('keeps the answers that came while the walk gave the event loop its turn', async () => {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a');
    const helper = StatHelper.start()!;
    for (let k = 0; k < 3; k++)
      expect(helper.offer({ rel: `f${k}`, prefix: dir + path.sep, names: ['a.txt'] })).toBe(true);
    // The walk yields between slices: the answers arrive then, not through answers().
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { answered, unanswered } = await helper.finish();
    expect(unanswered).toEqual([]);
    expect(answered.map((a) => a.rel).sort()).toEqual(['f0', 'f1', 'f2']);
  });

  it('where no thread can be started, stats every file itself and tries once', async () => {
    const rels = writeTree();
    const start = vi.spyOn(StatHelper, 'start').mockReturnValue(undefined);
    const listed = await listSourceFiles(path.join(dir, 'src'), [], []);
    expect(start).toHaveBeenCalledTimes(1);
    expect(listed.files.map((f) => f.relPath)).toEqual(rels);
    expect(listed.problems).toEqual([]);
  });
});
