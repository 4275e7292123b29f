import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { createSyncEvents } from '../../src/sync/events.js';
import { SyncRun } from '../../src/sync/sync-run.js';
import {
  createFixture,
  FAST_POLL,
  houseStyleManifest,
  setHouseStyle,
  uploadedUnits,
  type Fixture,
} from './fixture.js';

// The no-op fast paths (a file's verified mark, a mapping's listing snapshot) must never hide work:
// whatever a run skips, a missing output, a changed style list or an output overwritten by another
// source is still noticed.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** Runs that translate, then record the verified marks and the snapshot, then use the snapshot. */
async function settle(f: Fixture, files: number): Promise<void> {
  await f.sync();
  const state = await f.open();
  try {
    expect(await state.state.files.snapshot('docs')).toBeUndefined(); // the translating run took none
  } finally {
    await state.close();
  }
  const mark = f.mark();
  for (let i = 0; i < 2; i++) {
    const s = await f.sync();
    expect(s.unchanged).toBe(files * 2);
    expect(s.hashed + s.translated + s.reused).toBe(0);
  }
  expect(f.documentRequests(mark)).toEqual([]);
  const after = await f.open();
  try {
    expect(await after.state.files.snapshot('docs')).toBeDefined();
    expect([...(await after.state.files.listed('docs')).values()].every((k) => k[3] !== null)).toBe(true);
  } finally {
    await after.close();
  }
}

describe('no-op fast paths', () => {
  it('an output deleted by hand is translated again although the listing matches the snapshot', async () => {
    fx = await createFixture({ files: { 'a.txt': 'Alpha.\n', 'sub/b.txt': 'Beta.\n' } });
    await settle(fx, 2);
    fs.rmSync(path.join(fx.dir, 'out/de/sub/b.txt'));
    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.translated).toBe(1);
    expect(s.unchanged).toBe(3);
    expect(uploadedUnits(fx, mark)).toEqual(['b.txt:DE']);
    expect(fx.exists('out/de/sub/b.txt')).toBe(true);
    const again = await fx.sync();
    expect(again.translated + again.hashed).toBe(0);
  });

  it('a touched file is checked again without an upload; an edited one is translated', async () => {
    fx = await createFixture({ files: { 'a.txt': 'Alpha.\n', 'b.txt': 'Beta.\n' } });
    await settle(fx, 2);
    const a = path.join(fx.src, 'a.txt');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(a, later, later);
    let mark = fx.mark();
    const touched = await fx.sync();
    expect(touched.hashed).toBe(1);
    expect(touched.unchanged).toBe(4);
    expect(uploadedUnits(fx, mark)).toEqual([]);
    fx.write('src/b.txt', 'Beta, edited.\n');
    mark = fx.mark();
    const edited = await fx.sync();
    expect(uploadedUnits(fx, mark)).toEqual(['b.txt:DE', 'b.txt:FR']);
    expect(edited.unchanged).toBe(2);
  });

  it('a changed style list makes outputs stale although the listing matches the snapshot', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'At 3:00 PM.\n' },
      manifest: houseStyleManifest('use_24_hour_clock'),
    });
    await settle(fx, 1);
    setHouseStyle(fx, 'use_12_hour_clock');
    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.stale).toBe(1);
    expect(s.unchanged).toBe(1);
    expect(uploadedUnits(fx, mark)).toEqual([]);
  });

  it('an output is never overwritten by another source, also when that mapping runs alone (sync --only)', async () => {
    fx = await createFixture({
      files: { 'x.txt': 'From the docs folder.\n', 'y.txt': 'Why.\n' },
      manifest: {
        mappings: [
          {
            name: 'docs',
            source: 'src',
            output: 'out/{lang}/{path}',
            targets: [{ lang: 'de' }, { lang: 'fr' }],
          },
          { name: 'other', source: 'src2', output: 'out/{lang}/{name}', targets: [{ lang: 'de' }] },
        ],
      },
    });
    fx.write('src2/x.txt', 'From the other folder.\n');
    // Full runs: docs renders out/de/x.txt first, so other/x.txt collides and is left alone.
    const first = await fx.sync();
    expect(first.failed.map((f) => `${f.mapping}/${f.file}:${f.kind}`)).toEqual(['other/x.txt:collision']);
    const ours = fx.read('out/de/x.txt');
    await fx.sync();
    await fx.sync();
    const state = await fx.open();
    expect(await state.state.files.snapshot('docs')).toBeDefined();
    await state.close();

    // Alone, mapping "other" still finds the output made by docs/x.txt: a collision, not overwritten.
    const mark = fx.mark();
    const alone = await fx.sync({ only: ['other'] });
    expect(alone.failed.map((f) => `${f.mapping}/${f.file}:${f.kind}`)).toEqual(['other/x.txt:collision']);
    expect(fx.read('out/de/x.txt')).toBe(ours);

    // Nothing is uploaded back and forth: the next full run finds every output as it was.
    const s = await fx.sync();
    expect(uploadedUnits(fx, mark)).toEqual([]);
    expect(fx.read('out/de/x.txt')).toBe(ours);
    expect(s.unchanged).toBe(4);
    expect(s.failed.map((f) => `${f.mapping}/${f.file}:${f.kind}`)).toEqual(['other/x.txt:collision']);
  });
});

/** Two files in a/, one target, outputs named by file name only (out/de/x.txt): room for collisions. */
function flatProject(): Promise<Fixture> {
  return createFixture({
    files: { 'a/x.txt': 'Ex.\n', 'a/y.txt': 'Why.\n' },
    manifest: {
      mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{name}', targets: [{ lang: 'de' }] }],
    },
  });
}

describe('a mapping skipped by its snapshot', () => {
  it('still claims its outputs when later work needs them (a new file colliding with one)', async () => {
    fx = await flatProject();
    await fx.sync();
    await fx.sync(); // records the marks and the snapshot
    const loaded = await fx.load();
    const { state, close } = await fx.open();
    const events = createSyncEvents();
    const scanned: number[] = [];
    events.on('scan:done', (e) => scanned.push(e.files));
    const session = await SyncRun.open({
      loaded,
      connection: { client: fx.client() },
      state,
      logger: silentLogger(),
      events,
      options: { poll: FAST_POLL },
    });
    try {
      await session.scanAll();
      expect(scanned).toEqual([2]);
      expect(session.summary().unchanged).toBe(2);
      // As a watch event would: b/x.txt renders out/de/x.txt, already a/x.txt's output.
      fx.write('src/b/x.txt', 'Another ex.\n');
      const mark = fx.mark();
      await session.scanFile('docs', 'b/x.txt');
      await session.drain();
      const failed = session.summary().failed.map((f) => `${f.file}:${f.kind}`);
      expect(failed).toEqual(['b/x.txt:collision']);
      expect(fx.uploads(mark)).toEqual([]);
    } finally {
      await session.finish();
      await close();
    }
  });
});

describe('files the snapshot vouches for beside new ones', () => {
  it('only the new file is planned; the others need no look, and an output deleted by hand is still noticed', async () => {
    fx = await createFixture({ files: { 'a.txt': 'Alpha.\n', 'sub/b.txt': 'Beta.\n' } });
    await settle(fx, 2);
    fx.write('src/new/c.txt', 'Gamma.\n');
    let mark = fx.mark();
    const added = await fx.sync();
    expect(uploadedUnits(fx, mark)).toEqual(['c.txt:DE', 'c.txt:FR']);
    expect(added.unchanged).toBe(4);
    expect(added.hashed).toBe(1);

    // A new file again, and an old output gone: the output folders changed, every file is looked at.
    await fx.sync();
    await fx.sync();
    fx.write('src/new/d.txt', 'Delta.\n');
    fs.rmSync(path.join(fx.dir, 'out/fr/sub/b.txt'));
    mark = fx.mark();
    await fx.sync();
    expect(uploadedUnits(fx, mark)).toEqual(['b.txt:FR', 'd.txt:DE', 'd.txt:FR']);
    expect(fx.exists('out/fr/sub/b.txt')).toBe(true);
  });

  it('a new file rendering onto an output of a vouched file collides and overwrites nothing', async () => {
    fx = await flatProject();
    await fx.sync();
    await fx.sync();
    await fx.sync();
    const ours = fx.read('out/de/x.txt');
    // "0/x.txt" comes before "a/x.txt" in path order and renders the same output.
    fx.write('src/0/x.txt', 'An earlier ex.\n');
    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.failed.map((f) => `${f.file}:${f.kind}`)).toEqual(['0/x.txt:collision']);
    expect(fx.uploads(mark)).toEqual([]);
    expect(fx.read('out/de/x.txt')).toBe(ours);
  });
});
