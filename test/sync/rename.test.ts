import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, onPostgres, uploadedUnits, type Fixture } from './fixture.js';

// A file renamed over another of the same size and mtime keeps everything the size+mtime fast path
// looks at, but not its inode (nor its ctime): the run must notice the new content and translate it.
// States recorded before inodes were kept must go on without uploading anything again.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** Two sources of the same size, different content, given the same mtime. */
async function twins(): Promise<Fixture> {
  const f = await createFixture({
    files: { 'r1.txt': 'Apples are red.\n', 'r2.txt': 'Pears are gold.\n' },
  });
  const when = new Date('2026-01-02T03:04:05Z');
  for (const name of ['r1.txt', 'r2.txt']) fs.utimesSync(path.join(f.src, name), when, when);
  return f;
}

/** Syncs until the run is a no-op that took its fast paths (verified marks, then the snapshot). */
async function settle(f: Fixture): Promise<void> {
  await f.sync();
  for (let i = 0; i < 2; i++) {
    const s = await f.sync();
    expect(s.translated + s.hashed).toBe(0);
  }
}

describe('renames noticed by inode and ctime', () => {
  it('mv r1.txt r2.txt (same size and mtime) gives r2.txt the translation of its new content', async () => {
    fx = await twins();
    await settle(fx);
    const apples = fx.read('out/de/r1.txt');
    expect(fx.read('out/de/r2.txt')).not.toBe(apples);
    fs.renameSync(path.join(fx.src, 'r1.txt'), path.join(fx.src, 'r2.txt'));
    const s = await fx.sync();
    // r1.txt's content was translated before: its translations are reused, nothing is uploaded.
    expect(s.hashed).toBe(1);
    expect(s.translated + s.reused).toBe(2);
    expect(fx.read('out/de/r2.txt')).toBe(apples);
    const again = await fx.sync();
    expect(again.translated + again.hashed).toBe(0);
  });

  it('two files of the same size and mtime swapped (the listing unchanged) swap their outputs', async () => {
    // Each output is the other's donor. A copy refused because its donor was replaced first is
    // decided again: the donor found then must come with the job that holds this content (on
    // PostgreSQL one run in ten once copied the replaced output's new translation: both the same).
    fx = await twins();
    await settle(fx);
    const [apples, pears] = [fx.read('out/de/r1.txt'), fx.read('out/de/r2.txt')];
    const [r1, r2, tmp] = ['r1.txt', 'r2.txt', 'tmp'].map((n) => path.join(fx!.src, n)) as [
      string,
      string,
      string,
    ];
    fs.renameSync(r1, tmp);
    fs.renameSync(r2, r1);
    fs.renameSync(tmp, r2);
    const s = await fx.sync();
    // The same contents under other names: each output is the other's translation (copied or translated).
    expect(s.unchanged).toBe(0);
    expect(fx.read('out/de/r1.txt')).toBe(pears);
    expect(fx.read('out/de/r2.txt')).toBe(apples);
  });

  it('a state recorded without inodes goes on without uploading again, then notices renames', async () => {
    fx = await twins();
    await settle(fx);
    await forgetInodes(fx);
    const mark = fx.mark();
    const first = await fx.sync();
    expect(uploadedUnits(fx, mark)).toEqual([]);
    expect(first.hashed).toBe(2); // in doubt: hashed, same content
    expect(first.unchanged).toBe(4);
    const second = await fx.sync();
    expect(second.translated + second.hashed).toBe(0);
    const apples = fx.read('out/de/r1.txt');
    fs.renameSync(path.join(fx.src, 'r1.txt'), path.join(fx.src, 'r2.txt'));
    const renamed = await fx.sync();
    expect(renamed.translated + renamed.reused).toBe(2);
    expect(fx.read('out/de/r2.txt')).toBe(apples);
  });
});

/**
 * The state as a locsync before inodes were recorded left it: no inode, no ctime on any file, and no
 * snapshot this locsync could match (its digests held neither).
 */
async function forgetInodes(f: Fixture): Promise<void> {
  if (!onPostgres) {
    const store = f.openState();
    try {
      store.db.exec('UPDATE files SET ino = NULL, ctime_ms = NULL; DELETE FROM snapshots');
    } finally {
      store.close();
    }
    return;
  }
  const { state, close } = await f.open();
  try {
    await (state as unknown as { pool: { query(q: string): Promise<unknown> } }).pool.query(
      'UPDATE files SET ino = NULL, ctime_ms = NULL; DELETE FROM snapshots',
    );
  } finally {
    await close();
  }
}
