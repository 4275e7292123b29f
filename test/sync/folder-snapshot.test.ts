import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PgFileInventory } from '../../src/state/postgres/inventory.js';
import { SqliteFileInventory } from '../../src/state/sqlite/inventory.js';
import { createFixture, type Fixture } from './fixture.js';

// The snapshot's per-folder digests: beside a folder that changed, a folder whose own listing is
// the snapshot's is taken whole (no file record read), and must still hide nothing. An edit, a
// deletion, a folder removed and an output removed by hand are noticed as they are without it.

let fx: Fixture | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await fx?.close();
  fx = undefined;
});

const FILES = {
  'top.txt': 'On top.\n',
  'a/x.txt': 'Ex.\n',
  'a/y.txt': 'Why.\n',
  'b/z.txt': 'Zed.\n',
  'b/z2.txt': 'Zed two.\n',
  'c/w.txt': 'Double you.\n',
};

const uploaded = (f: Fixture, mark: number) =>
  f
    .uploads(mark)
    .map((u) => `${u.filename}:${u.target_lang}`)
    .sort();

/** Translated, then a no-op that records the snapshot with its folders. */
async function settled(): Promise<Fixture> {
  const f = await createFixture({ files: FILES });
  await f.sync();
  await f.sync();
  const { state, close } = await f.open();
  try {
    const snap = await state.files.snapshot('docs');
    expect([...(snap?.folders?.keys() ?? [])].sort()).toEqual(['', 'a', 'b', 'c']);
  } finally {
    await close();
  }
  return f;
}

/** Which file records the next runs read, on either backend: by folder (the folders asked) or all. */
function recordReads(): { byFolder: string[][]; all: () => number } {
  const byFolder: string[][] = [];
  let all = 0;
  for (const proto of [SqliteFileInventory.prototype, PgFileInventory.prototype]) {
    const { listedIn, listed } = proto;
    vi.spyOn(proto, 'listedIn').mockImplementation(function (this: typeof proto, mapping, folders) {
      byFolder.push([...folders].sort());
      return listedIn.call(this, mapping, folders);
    });
    vi.spyOn(proto, 'listed').mockImplementation(function (this: typeof proto, mapping) {
      all++;
      return listed.call(this, mapping);
    });
  }
  return { byFolder, all: () => all };
}

describe('folders the snapshot vouches for beside changed ones', () => {
  it('only the changed folders are read; an edit and a touch there are noticed', async () => {
    fx = await settled();
    fx.write('src/new/n.txt', 'New.\n');
    fx.write('src/a/x.txt', 'Ex, edited.\n');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(fx.src, 'a/y.txt'), later, later);
    const reads = recordReads();
    const mark = fx.mark();
    const s = await fx.sync();
    expect(uploaded(fx, mark)).toEqual(['n.txt:DE', 'n.txt:FR', 'x.txt:DE', 'x.txt:FR']);
    expect(s.hashed).toBe(3); // n.txt, x.txt, and the touched y.txt (same content: not uploaded)
    expect(s.unchanged).toBe(10);
    expect(reads.byFolder).toEqual([['a', 'new']]);
    expect(reads.all()).toBe(0);

    // The next run records a snapshot again, and the one after it is a no-op.
    await fx.sync();
    const again = await fx.sync();
    expect(again.translated + again.hashed).toBe(0);
    expect(again.unchanged).toBe(14);
  });

  it('a deleted source and a deleted folder are noticed beside a new folder', async () => {
    fx = await settled();
    fx.write('src/new/n.txt', 'New.\n');
    fs.rmSync(path.join(fx.src, 'b/z.txt'));
    fs.rmSync(path.join(fx.src, 'c'), { recursive: true });
    const reads = recordReads();
    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.removedSources).toBe(2);
    expect(uploaded(fx, mark)).toEqual(['n.txt:DE', 'n.txt:FR']);
    expect(s.unchanged).toBe(8);
    expect(reads.byFolder).toEqual([['b', 'c', 'new']]);
    const { state, close } = await fx.open();
    try {
      expect([...(await state.files.listed('docs')).keys()].sort()).toEqual([
        'a/x.txt',
        'a/y.txt',
        'b/z2.txt',
        'new/n.txt',
        'top.txt',
      ]);
    } finally {
      await close();
    }
  });

  it('an output removed by hand in an unchanged folder is translated again', async () => {
    fx = await settled();
    fx.write('src/new/n.txt', 'New.\n');
    fs.rmSync(path.join(fx.dir, 'out/de/c/w.txt'));
    const mark = fx.mark();
    const s = await fx.sync();
    expect(uploaded(fx, mark)).toEqual(['n.txt:DE', 'n.txt:FR', 'w.txt:DE']);
    expect(s.unchanged).toBe(11);
    expect(fx.exists('out/de/c/w.txt')).toBe(true);
  });

  it('a new file rendering onto an output of a file in an unchanged folder collides', async () => {
    fx = await createFixture({
      files: { 'a/x.txt': 'Ex.\n', 'a/y.txt': 'Why.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{name}', targets: [{ lang: 'de' }] }],
      },
    });
    await fx.sync();
    await fx.sync();
    const ours = fx.read('out/de/x.txt');
    // b/x.txt comes after a/x.txt and renders the same output; b/new.txt renders a new one.
    fx.write('src/b/x.txt', 'Another ex.\n');
    fx.write('src/b/new.txt', 'New.\n');
    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.failed.map((f) => `${f.file}:${f.kind}`)).toEqual(['b/x.txt:collision']);
    expect(uploaded(fx, mark)).toEqual(['new.txt:DE']);
    expect(fx.read('out/de/x.txt')).toBe(ours);
  });
});
