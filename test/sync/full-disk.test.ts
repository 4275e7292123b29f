import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/local-service/engine/index.js';
import { listSpooled, spoolDirOf } from '../../src/util/spool.js';
import { createFixture, type Fixture } from './fixture.js';

// A full disk never delivers a cut-off file as done: an output folder that runs out of room keeps
// its previous output, the translation stays in the spool (paid for, not lost), and the next run
// delivers it once there is room again, with no upload and no download. Once on a real small
// filesystem (a 64 KB tmpfs, where the machine lets a test mount one), once with the write layer's
// full-disk fault (LOCSYNC_FAULT_DISK_FULL, src/util/write-all.ts).

/** Whether this process may mount a tmpfs (root, and a kernel and container that allow it). */
function canMountTmpfs(): boolean {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

const TMPFS = canMountTmpfs();
if (!TMPFS)
  console.warn(
    'full-disk test on a real filesystem skipped: this machine does not let the test mount a tmpfs (needs root); the write-layer fault test still runs',
  );

let fx: Fixture | undefined;
let mounted: string | undefined;
afterEach(async () => {
  if (mounted) execFileSync('umount', [mounted]);
  mounted = undefined;
  delete process.env.LOCSYNC_FAULT_DISK_FULL;
  await fx?.close();
  fx = undefined;
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A text of about `kb` KB. */
const text = (kb: number) =>
  Array.from({ length: kb * 16 }, (_, i) => `Line ${String(i).padStart(5, '0')} of a long text.\n`).join('');

/** What the local service makes of `src/guide.txt` in German, byte for byte. */
async function translationOf(f: Fixture): Promise<Buffer> {
  const out = path.join(f.dir, 'expected.txt');
  await createEngine().translateDocument(
    { path: path.join(f.src, 'guide.txt'), ext: 'txt', filename: 'guide.txt' },
    { path: out, ext: 'txt' },
    { targetLang: 'DE' },
  );
  return fs.readFileSync(out);
}

async function oneTarget(): Promise<Fixture> {
  return createFixture({
    files: { 'guide.txt': 'The first edition of the guide.\n' },
    manifest: {
      mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
    },
  });
}

/**
 * The first edition is delivered; the second does not fit (`fill` takes the room away); then
 * `makeRoom` gives it back and the next run delivers the second edition from the spool.
 */
async function fullDiskThenRoom(f: Fixture, fill: () => void, makeRoom: () => void): Promise<void> {
  expect((await f.sync()).failed).toEqual([]);
  const first = fs.readFileSync(path.join(f.dir, 'out/de/guide.txt'));
  f.write('src/guide.txt', text(40));
  fill();
  const full = await f.sync();
  expect(full.failed.map((x) => [x.file, x.kind, x.willRetry])).toEqual([['guide.txt', 'output', true]]);
  expect(full.failed[0]?.error).toMatch(/kept in the spool/);
  // The previous output is untouched, no part file is left, the translation waits in the spool.
  expect(fs.readFileSync(path.join(f.dir, 'out/de/guide.txt'))).toEqual(first);
  expect(fs.readdirSync(path.join(f.dir, 'out/de'))).toEqual(['guide.txt']);
  const spoolDir = spoolDirOf((await f.load()).statePath);
  expect(listSpooled(spoolDir)).toHaveLength(1);
  // Not taken for done: the next run with no room still has it to deliver, and says so again.
  const still = await f.sync();
  expect(still.failed.map((x) => [x.file, x.kind])).toEqual([['guide.txt', 'output']]);

  makeRoom();
  const mark = f.mark();
  const after = await f.sync();
  expect(after.failed).toEqual([]);
  expect(f.uploads(mark)).toEqual([]);
  expect(f.documentRequests(mark).filter((r) => r.path.endsWith('/result'))).toEqual([]);
  const delivered = fs.readFileSync(path.join(f.dir, 'out/de/guide.txt'));
  expect(delivered.length).toBe((await translationOf(f)).length);
  expect(sha256(delivered)).toBe(sha256(await translationOf(f)));
  expect(listSpooled(spoolDir)).toEqual([]);
  // The state records what is on disk: the next run finds it up to date.
  const noop = await f.sync();
  expect(noop.failed).toEqual([]);
  expect(noop.translated).toBe(0);
}

describe('a full disk', () => {
  it.skipIf(!TMPFS)(
    'on a 64 KB tmpfs: the previous output stays, the translation waits in the spool',
    async () => {
      fx = await oneTarget();
      const f = fx;
      const out = path.join(f.dir, 'out');
      fs.mkdirSync(out);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', out]);
      mounted = out;
      const filler = path.join(out, 'filler.bin');
      await fullDiskThenRoom(
        f,
        // About 40 KB taken: what is left holds the first edition, not the second (~50 KB).
        () => fs.writeFileSync(filler, Buffer.alloc(40 * 1024, 1)),
        () => fs.rmSync(filler),
      );
    },
    120_000,
  );

  it('with the write layer full after 4 KB: the same', async () => {
    fx = await oneTarget();
    const f = fx;
    await fullDiskThenRoom(
      f,
      () => {
        process.env.LOCSYNC_FAULT_DISK_FULL = `${path.join(f.dir, 'out')}:4096`;
      },
      () => {
        delete process.env.LOCSYNC_FAULT_DISK_FULL;
      },
    );
  }, 120_000);
});
