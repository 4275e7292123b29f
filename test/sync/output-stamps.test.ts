import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Mapping } from '../../src/manifest/sections/mapping.js';
import type { ListedFolder } from '../../src/sync/plan/list-sources.js';
import { listingDigests } from '../../src/sync/plan/listing-digest.js';
import { SETTLED_MS, outputsRecord } from '../../src/sync/plan/output-listing.js';
import { createFixture, uploadedUnits, type Fixture } from './fixture.js';

// The no-op takes a stat per output folder (its stamp: inode, mtime, ctime) where it read each
// folder's names, once the folders' times have settled; a folder whose stamp changed is read as
// before. Whatever the stamp lets it skip, an output taken away is still noticed, and a folder
// that changed with its outputs all there is stamped again, not read by every later no-op.

let fx: Fixture | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await fx?.close();
  fx = undefined;
});

const settle = () => new Promise((r) => setTimeout(r, SETTLED_MS + 150));

/** The output folders the next runs read by name (readdir under out/). */
function outputFolderReads(f: Fixture): string[] {
  const out = path.join(f.dir, 'out') + path.sep;
  const reads: string[] = [];
  const readdir = fs.readdirSync.bind(fs);
  vi.spyOn(fs, 'readdirSync').mockImplementation(((p: fs.PathLike, o?: unknown) => {
    const at = String(p);
    if (at.startsWith(out)) reads.push(path.relative(f.dir, at));
    return readdir(p, o as never);
  }) as typeof fs.readdirSync);
  return reads;
}

/** Translated, the output folders settled, then the no-op that records the snapshot. */
async function stamped(): Promise<Fixture> {
  const f = await createFixture({ files: { 'a.txt': 'Alpha.\n', 'sub/b.txt': 'Beta.\n' } });
  await f.sync();
  await settle();
  const s = await f.sync();
  expect(s.unchanged).toBe(4);
  const { state, close } = await f.open();
  try {
    const snap = await state.files.snapshot('docs');
    expect(snap?.outputsStamp).toBeDefined();
  } finally {
    await close();
  }
  return f;
}

describe('output folder stamps', () => {
  it('a no-op over settled output folders reads none of them; an output taken away is still noticed', async () => {
    fx = await stamped();
    const reads = outputFolderReads(fx);
    const noop = await fx.sync();
    expect(noop.unchanged).toBe(4);
    expect(reads).toEqual([]);

    fs.rmSync(path.join(fx.dir, 'out/de/sub/b.txt'));
    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.translated).toBe(1);
    expect(uploadedUnits(fx, mark)).toEqual(['b.txt:DE']);
    expect(fx.exists('out/de/sub/b.txt')).toBe(true);
  });

  it('a folder made again with the same names is read, and a missing output in it translated', async () => {
    fx = await stamped();
    // The same names, in a folder that is not the one stamped: `cp -r` of it, one output left out.
    const sub = path.join(fx.dir, 'out/fr/sub');
    fs.renameSync(sub, `${sub}.old`);
    fs.mkdirSync(sub);
    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.translated).toBe(1);
    expect(uploadedUnits(fx, mark)).toEqual(['b.txt:FR']);
  });

  it("a file of someone else's in an output folder is looked at once, then the folder is stamped again", async () => {
    fx = await stamped();
    fx.write('out/de/notes.txt', 'a reviewer left this here\n');
    // A file come and gone (an editor's lock file): the names as they were, the folder's times not.
    fx.write('out/fr/.~lock.a.txt#', 'lock\n');
    fs.rmSync(path.join(fx.dir, 'out/fr/.~lock.a.txt#'));
    await settle();
    let reads = outputFolderReads(fx);
    const mark = fx.mark();
    const first = await fx.sync();
    expect(first.unchanged).toBe(4);
    expect(first.translated + first.hashed).toBe(0);
    expect(fx.documentRequests(mark)).toEqual([]);
    expect(reads).toContain(path.join('out', 'de'));
    expect(reads).toContain(path.join('out', 'fr'));

    vi.restoreAllMocks();
    reads = outputFolderReads(fx);
    const again = await fx.sync();
    expect(again.unchanged).toBe(4);
    expect(reads).toEqual([]);
    expect(fx.read('out/de/notes.txt')).toBe('a reviewer left this here\n');
  });
});

describe('outputsRecord', () => {
  it('keeps no stamp of a folder changed within SETTLED_MS, and the same stamp of one left alone', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-stamps-'));
    try {
      fs.mkdirSync(path.join(base, 'out'));
      fs.writeFileSync(path.join(base, 'out', 'a.txt'), 'a');
      const fresh = outputsRecord(base, ['out', 'gone']);
      expect(fresh.outputsStamp).toBeUndefined();
      await settle();
      const settled = outputsRecord(base, ['out', 'gone']);
      expect(settled.outputsDigest).toBe(fresh.outputsDigest);
      expect(settled.outputsStamp).toBeDefined();
      expect(outputsRecord(base, ['out', 'gone']).outputsStamp).toBe(settled.outputsStamp);
      fs.writeFileSync(path.join(base, 'out', 'b.txt'), 'b');
      fs.rmSync(path.join(base, 'out', 'b.txt'));
      const touched = outputsRecord(base, ['out', 'gone']);
      expect(touched.outputsDigest).toBe(fresh.outputsDigest);
      expect(touched.outputsStamp).toBeUndefined();
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('listingDigests', () => {
  const file = (
    relPath: string,
    over: Partial<Record<'size' | 'mtimeMs' | 'ino' | 'ctimeMs', number>> = {},
  ) => ({
    relPath,
    absPath: `/src/${relPath}`,
    size: 40,
    mtimeMs: 1_796_685_468_807.125,
    ino: 2 ** 40 + 3,
    ctimeMs: 1_796_685_468_807.5,
    ...over,
  });
  const mapping = { name: 'docs' } as Mapping;
  /** The walk's folders of `files` (given in path order), as list-sources.ts hands them over. */
  const foldersOf = (files: ReturnType<typeof file>[]): ListedFolder[] => {
    const byRel = new Map<string, { names: string[]; numbers: number[] }>();
    for (const f of files) {
      const slash = f.relPath.lastIndexOf('/');
      const rel = slash === -1 ? '' : f.relPath.slice(0, slash);
      const folder = byRel.get(rel) ?? { names: [], numbers: [] };
      byRel.set(rel, folder);
      folder.names.push(f.relPath.slice(slash + 1));
      folder.numbers.push(f.size, f.mtimeMs, f.ino, f.ctimeMs);
    }
    return [...byRel].map(([rel, { names, numbers }]) => ({
      rel,
      prefix: `/src/${rel}`,
      names,
      stats: Float64Array.from(numbers),
    }));
  };
  const digests = (files: ReturnType<typeof file>[], sig = 7) =>
    listingDigests(mapping, foldersOf(files), () => sig);
  const listing = [file('a.txt'), file('sub/b.txt'), file('sub/c.txt'), file('top.txt')];

  it('is the same for the same files, and changes with any path, number or signature, in its folder only', () => {
    const before = digests(listing);
    expect(digests(listing.map((f) => ({ ...f })))).toEqual(before);
    expect(before.names).toEqual(['', 'sub']);
    const changes = [
      [file('a.txt'), file('sub/b.txt', { size: 41 }), file('sub/c.txt'), file('top.txt')],
      [
        file('a.txt'),
        file('sub/b.txt', { mtimeMs: 1_796_685_468_807.25 }),
        file('sub/c.txt'),
        file('top.txt'),
      ],
      [file('a.txt'), file('sub/b.txt', { ino: 2 ** 40 + 4 }), file('sub/c.txt'), file('top.txt')],
      [file('a.txt'), file('sub/b.txt', { ctimeMs: 1 }), file('sub/c.txt'), file('top.txt')],
      [file('a.txt'), file('sub/b2.txt'), file('sub/c.txt'), file('top.txt')],
      [file('a.txt'), file('sub/c.txt'), file('top.txt')],
    ];
    for (const changed of changes) {
      const after = digests(changed);
      expect(after.digest).not.toBe(before.digest);
      expect(after.digests[0]).toBe(before.digests[0]); // the top folder's files are as they were
      expect(after.digests[1]).not.toBe(before.digests[1]);
    }
    const resigned = digests(listing, 8);
    expect(resigned.digests.every((d, k) => d !== before.digests[k])).toBe(true);
  });

  it('feeds a folder of more files than one run holds without losing any', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => file(`big/f${String(i).padStart(5, '0')}.txt`));
    const before = digests(many);
    const last = many.length - 1;
    const edited = many.map((f, i) => (i === last ? { ...f, size: 99 } : f));
    expect(digests(edited).digests[0]).not.toBe(before.digests[0]);
    expect(digests(many.map((f, i) => (i === 0 ? { ...f, ino: 5 } : f))).digest).not.toBe(before.digest);
  });
});
