import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareWithSnapshot } from '../../src/watch/folder-snapshot.js';
import { FolderPoller, type PolledFile } from '../../src/watch/poller.js';
import { SourceRoots } from '../../src/watch/source-roots.js';
import type { WatchedSource } from '../../src/watch/sources.js';
import { startSourceWatcher } from '../../src/watch/watcher.js';
import { watchSchema } from '../../src/manifest/sections/watch.js';
import { silentLogger } from '../../src/log/logger.js';

// Poll mode's pieces: the comparison of two listings, and the poller on real folders, including a
// source folder that goes away (nothing is reported deleted).

const f = (relPath: string, size: number, mtimeMs = 1, ino = 7, ctimeMs = 1): PolledFile => ({
  relPath,
  size,
  mtimeMs,
  ino,
  ctimeMs,
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('compareWithSnapshot', () => {
  const diff = (before: PolledFile[], after: PolledFile[]) => {
    const { changed, gone } = compareWithSnapshot(compareWithSnapshot(new Map(), before).snapshot, after);
    return { changed: changed.sort(), gone: gone.sort() };
  };
  it('finds new, changed (size or mtime) and gone files, folders gone included', () => {
    const before = [f('a.txt', 1), f('b.txt', 2), f('c/d.txt', 3), f('e.txt', 4), f('g/h/i.txt', 1)];
    const after = [f('a.txt', 1), f('b.txt', 5), f('c/d.txt', 3, 9), f('c/new.txt', 1), f('z.txt', 1)];
    expect(diff(before, after)).toEqual({
      changed: ['b.txt', 'c/d.txt', 'c/new.txt', 'z.txt'],
      gone: ['e.txt', 'g/h/i.txt'],
    });
    expect(diff([], [])).toEqual({ changed: [], gone: [] });
    expect(diff(before, before)).toEqual({ changed: [], gone: [] });
    expect(diff(before, [...before].reverse())).toEqual({ changed: [], gone: [] });
  });
  it('sees a change of a fraction of a millisecond or of a size beyond 4 GB', () => {
    const big = 5 * 2 ** 32;
    expect(diff([f('x/a.txt', big, 1000.5)], [f('x/a.txt', big, 1000.25)]).changed).toEqual(['x/a.txt']);
    expect(diff([f('x/a.txt', big, 1)], [f('x/a.txt', big + 2 ** 32, 1)]).changed).toEqual(['x/a.txt']);
  });
  it('sees a file renamed over another of the same size and mtime (another inode or ctime)', () => {
    expect(diff([f('a.txt', 3, 5, 100, 9)], [f('a.txt', 3, 5, 101, 9)]).changed).toEqual(['a.txt']);
    expect(diff([f('a.txt', 3, 5, 100, 9)], [f('a.txt', 3, 5, 100, 9.5)]).changed).toEqual(['a.txt']);
    // A record without an inode (an older state) is looked at again.
    expect(diff([f('a.txt', 3, 5, NaN, NaN)], [f('a.txt', 3, 5, 100, 9)]).changed).toEqual(['a.txt']);
  });
});

describe('FolderPoller', () => {
  it('reports edits and deletions, and nothing deleted while the source folder is away', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-poller-'));
    dirs.push(base);
    const root = path.join(base, 'share');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a.txt'), 'a');
    fs.writeFileSync(path.join(root, 'sub/b.txt'), 'b');
    const src: WatchedSource = {
      mapping: 'docs',
      root,
      accepts: () => true,
      skipDirs: [],
      followLinksOutside: false,
      include: [],
      ignore: [],
    };
    const events: string[] = [];
    const problems: Array<string | undefined> = [];
    const stat = (rel: string) => fs.statSync(path.join(root, rel));
    const recorded = () =>
      ['a.txt', 'sub/b.txt'].map((r) => f(r, stat(r).size, stat(r).mtimeMs, stat(r).ino, stat(r).ctimeMs));
    const poller = new FolderPoller([src], 60_000, new SourceRoots([root]), recorded, {
      file: (abs, kind) => events.push(`${kind} ${path.relative(root, abs)}`),
      rootState: (_root, problem) => problems.push(problem),
    });

    await poller.pollOnce();
    expect(events).toEqual([]);
    fs.writeFileSync(path.join(root, 'sub/b.txt'), 'b, longer');
    fs.writeFileSync(path.join(root, 'c.txt'), 'c');
    fs.rmSync(path.join(root, 'a.txt'));
    await poller.pollOnce();
    expect(events.sort()).toEqual(['change c.txt', 'change sub/b.txt', 'unlink a.txt']);

    events.length = 0;
    fs.renameSync(root, path.join(base, 'away'));
    await poller.pollOnce();
    expect(events).toEqual([]);
    expect(problems.at(-1)).toContain(`source folder ${root} is not there`);
    fs.renameSync(path.join(base, 'away'), root);
    await poller.pollOnce();
    expect(events).toEqual([]);
    expect(problems.at(-1)).toBeUndefined();
    await poller.close();
  });
});

describe('startSourceWatcher: a source folder away', () => {
  it('is a problem (/healthz degraded) unless its mapping allows it (allow_missing); deletions are held either way', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-away-'));
    dirs.push(base);
    const source = (mapping: string, allowMissing: boolean): WatchedSource => ({
      mapping,
      root: path.join(base, mapping),
      accepts: () => true,
      skipDirs: [],
      followLinksOutside: false,
      include: [],
      ignore: [],
      allowMissing,
    });
    const reported: string[][] = [];
    const sw = startSourceWatcher(
      [source('share', false), source('usb', true)],
      watchSchema.parse({ poll: true, interval: 3600 }),
      { file: () => undefined, problems: (list) => reported.push(list), rootBack: () => undefined },
      { recorded: async () => [] },
      silentLogger(),
    );
    await sw.ready;
    expect(sw.trusts(path.join(base, 'share'))).toBe(false);
    expect(sw.trusts(path.join(base, 'usb'))).toBe(false);
    const problems = reported.at(-1) ?? [];
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`source folder ${path.join(base, 'share')} is not there`);
    await sw.close();
  });
});
