import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { renderProgress, RunTracker } from '../../src/cli/progress.js';
import { inotifyWatches, sha256, startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

let w: WatchFixture | undefined;

afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe('locsync watch', () => {
  it('uploads a file written slowly in chunks once, after its last write', async () => {
    w = await startWatchFixture({ manifest: () => ({ watch: { stability: 1 } }) });
    const { fx } = w;
    if (fs.existsSync('/proc/self/fdinfo')) expect(inotifyWatches()).toBeGreaterThan(0);
    const file = path.join(fx.src, 'slow.txt');
    const chunks = Array.from({ length: 8 }, (_, i) => `Chunk number ${i} of a slowly written file.\n`);
    for (const c of chunks) {
      fs.appendFileSync(file, c);
      await sleep(400);
    }
    const final = chunks.join('');
    await waitFor('both outputs', () => fx.exists('out/de/slow.txt') && fx.exists('out/fr/slow.txt'));
    await w.runner.settle();
    const uploads = fx.uploads().filter((u) => u.filename === 'slow.txt');
    expect(uploads.map((u) => u.target_lang).sort()).toEqual(['DE', 'FR']);
    for (const u of uploads) expect(u.sha256).toBe(sha256(final));
  });

  it("the terminal view's file count follows files added and deleted, as the status page does (issue 29)", async () => {
    let tracker: RunTracker | undefined;
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, `File ${i}.\n`]));
    w = await startWatchFixture({ files, beforeStart: (r) => (tracker = new RunTracker(r.events)) });
    const { fx } = w;
    await waitFor('initial outputs', () => fx.exists('out/de/f5.txt') && fx.exists('out/fr/f5.txt'));
    await w.runner.settle();
    expect(tracker!.totals().scanned).toBe(6);
    for (let i = 0; i < 5; i++) fx.write(`src/new${i}.txt`, `A new file, number ${i}.\n`);
    fs.rmSync(path.join(fx.src, 'f0.txt'));
    await waitFor('the new outputs', () => fx.exists('out/fr/new4.txt') && fx.exists('out/de/new4.txt'));
    await w.runner.settle();
    await waitFor('the count of 10 files', () => tracker!.totals().scanned === 10, 10_000).catch(
      () => undefined,
    );
    expect(tracker!.totals().scanned).toBe(10);
    const head = renderProgress(tracker!, {
      now: Date.now(),
      longJobMs: 0,
      maxJobLines: 0,
      color: false,
      width: 79,
    });
    expect(head[0]).toMatch(/ {2}10 files {2}/);
  });

  it('translates a burst of 1,000 files copied at once, each uploaded once', async () => {
    w = await startWatchFixture({
      service: { workers: 32, translateSeconds: 0.02 },
      manifest: (url) => ({
        service: { url, key_env: 'LOCSYNC_TEST_SYNC_KEY', concurrency: 32, requests_per_second: 1000 },
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      }),
    });
    const { fx } = w;
    const names = Array.from({ length: 1000 }, (_, i) => `burst/f${String(i).padStart(4, '0')}.txt`);
    for (const [i, n] of names.entries()) fx.write(`src/${n}`, `Document ${i} of the burst.\n`);
    // Throughput-bound (1,000 uploads through the local service): generous on a busy machine.
    await waitFor('1,000 outputs', () => names.every((n) => fx.exists(`out/de/${n}`)), 240_000);
    await w.runner.settle();
    const uploads = fx.uploads();
    expect(uploads).toHaveLength(1000);
    expect(new Set(uploads.map((u) => u.sha256)).size).toBe(1000);
    expect(w.runner.queueDepth()).toBe(0);
  }, 300_000);

  it('reuses the output on a rename and applies on_source_delete: delete', async () => {
    w = await startWatchFixture({
      manifest: () => ({ on_source_delete: 'delete' }),
      files: { 'a.txt': 'A document that gets renamed.\n', 'keep.txt': 'Stays.\n' },
    });
    const { fx } = w;
    await waitFor('initial outputs', () => fx.exists('out/de/a.txt') && fx.exists('out/fr/keep.txt'));
    await w.runner.settle();
    const translated = fx.read('out/de/a.txt');
    const mark = fx.mark();
    fs.renameSync(path.join(fx.src, 'a.txt'), path.join(fx.src, 'b.txt'));
    await waitFor(
      'renamed output, old one deleted',
      () => fx.exists('out/de/b.txt') && !fx.exists('out/de/a.txt'),
    );
    await waitFor('fr too', () => fx.exists('out/fr/b.txt') && !fx.exists('out/fr/a.txt'));
    await w.runner.settle();
    expect(fx.uploads(mark)).toEqual([]);
    expect(fx.read('out/de/b.txt')).toBe(translated);

    fs.rmSync(path.join(fx.src, 'b.txt'));
    await waitFor(
      'outputs of the deleted source removed',
      () => !fx.exists('out/de/b.txt') && !fx.exists('out/fr/b.txt'),
    );
    expect(fx.exists('out/de/keep.txt')).toBe(true);
    expect(fx.uploads(mark)).toEqual([]);
  });

  it('follows whole folders: a removed folder applies on_source_delete, a folder moved in is translated', async () => {
    w = await startWatchFixture({
      manifest: () => ({ on_source_delete: 'delete' }),
      files: { 'sub/a.txt': 'A in a folder.\n', 'sub/deep/b.txt': 'B deeper.\n' },
    });
    const { fx } = w;
    await waitFor('outputs', () => fx.exists('out/de/sub/a.txt') && fx.exists('out/fr/sub/deep/b.txt'));
    await w.runner.settle();
    fs.rmSync(path.join(fx.src, 'sub'), { recursive: true });
    await waitFor('outputs of the folder removed', () =>
      ['de', 'fr'].every((l) => !fx.exists(`out/${l}/sub/a.txt`) && !fx.exists(`out/${l}/sub/deep/b.txt`)),
    );
    fx.write('elsewhere/c.txt', 'In a folder moved into the source.\n');
    fs.renameSync(path.join(fx.dir, 'elsewhere'), path.join(fx.src, 'moved'));
    await waitFor(
      'the moved-in folder translated',
      () => fx.exists('out/de/moved/c.txt') && fx.exists('out/fr/moved/c.txt'),
    );
  });

  it('keeps outputs of a deleted source with the default policy (keep)', async () => {
    w = await startWatchFixture({ files: { 'x.txt': 'Will be deleted.\n' } });
    const { fx } = w;
    await waitFor('outputs', () => fx.exists('out/de/x.txt') && fx.exists('out/fr/x.txt'));
    await w.runner.settle();
    fs.rmSync(path.join(fx.src, 'x.txt'));
    await waitFor('deletion recorded', () => w!.state.getFile('docs', 'x.txt') === undefined);
    expect(fx.exists('out/de/x.txt')).toBe(true);
  });

  it('waits while an Office lock file says the document is open', async () => {
    w = await startWatchFixture();
    const { fx } = w;
    const lock = path.join(fx.src, '~$report.txt');
    fs.writeFileSync(lock, 'owner');
    const open = new Promise((resolve) => w!.runner.once('file:open', resolve));
    fx.write('src/report.txt', 'Being edited.\n');
    await open;
    expect(fx.uploads()).toEqual([]);
    fs.rmSync(lock);
    await waitFor('output once closed', () => fx.exists('out/de/report.txt'));
  });

  it('translates again a file replaced while its job is in flight; the newest content wins', async () => {
    w = await startWatchFixture({ service: { translateSeconds: 1 } });
    const { fx } = w;
    fx.write('src/v.txt', 'Version one.\n');
    await waitFor('first upload', () => fx.uploads().some((u) => u.sha256 === sha256('Version one.\n')));
    fx.write('src/v.txt', 'Version two, longer.\n');
    await waitFor('second upload', () =>
      fx.uploads().some((u) => u.sha256 === sha256('Version two, longer.\n')),
    );
    await w.runner.settle();
    const done = w.state.doneJobsOfSource('docs', 'v.txt').filter((j) => j.target_lang === 'de');
    const latest = done.reduce((a, b) => (b.id > a.id ? b : a));
    expect(latest.sha256).toBe(sha256('Version two, longer.\n'));
    expect(fx.uploads().filter((u) => u.sha256 === sha256('Version two, longer.\n'))).toHaveLength(2);
  });

  it('never uploads content that was replaced while its job waited in the queue', async () => {
    w = await startWatchFixture({
      service: { translateSeconds: 0.8 },
      manifest: (url) => ({
        service: { url, key_env: 'LOCSYNC_TEST_SYNC_KEY', concurrency: 1, requests_per_second: 1000 },
      }),
    });
    const { fx, runner } = w;
    fx.write('src/blocker.txt', 'Keeps the only upload slot busy.\n');
    await waitFor('blocker uploading', () => fx.uploads().length >= 1);
    const queued = new Promise<void>((resolve) =>
      runner.events.on('job:queued', (e) => e.file === 'v.txt' && resolve()),
    );
    fx.write('src/v.txt', 'Old content, queued.\n');
    await queued;
    fx.write('src/v.txt', 'New content, replaced before its upload.\n');
    await waitFor('outputs', () => fx.exists('out/de/v.txt') && fx.exists('out/fr/v.txt'), 30_000);
    await runner.settle();
    const mine = fx.uploads().filter((u) => u.filename === 'v.txt');
    expect(mine.map((u) => u.sha256)).toEqual([
      sha256('New content, replaced before its upload.\n'),
      sha256('New content, replaced before its upload.\n'),
    ]);
  });

  it('does not upload again a file only touched while its job is in flight', async () => {
    w = await startWatchFixture({ service: { translateSeconds: 1.5 } });
    const { fx } = w;
    fx.write('src/t.txt', 'Touched while translating.\n');
    await waitFor('uploads', () => fx.uploads().length === 2);
    const later = new Date(Date.now() - 10_000);
    fs.utimesSync(path.join(fx.src, 't.txt'), later, later);
    await waitFor('outputs', () => fx.exists('out/de/t.txt') && fx.exists('out/fr/t.txt'));
    await w.runner.settle();
    expect(fx.uploads()).toHaveLength(2);
    expect(w.state.openJobs()).toEqual([]);
  });

  it('rescans periodically without uploading anything again', async () => {
    w = await startWatchFixture({
      manifest: () => ({ watch: { rescan_minutes: 0.01 } }),
      files: { 'r.txt': 'Rescanned often.\n' },
    });
    const { fx, runner } = w;
    await waitFor('outputs', () => fx.exists('out/de/r.txt') && fx.exists('out/fr/r.txt'));
    const mark = fx.mark();
    let rescans = 0;
    runner.on('rescan', () => rescans++);
    await waitFor('two rescans', () => rescans >= 2);
    fx.write('src/s.txt', 'Arrives between rescans.\n');
    await waitFor('outputs of a new file', () => fx.exists('out/de/s.txt') && fx.exists('out/fr/s.txt'));
    await runner.settle();
    expect(fx.uploads(mark).map((u) => u.filename)).toEqual(['s.txt', 's.txt']);
  });

  it('works by polling (watch.poll) for shares without native events', async () => {
    w = await startWatchFixture({ manifest: () => ({ watch: { poll: true, interval: 0.1 } }) });
    const { fx } = w;
    // Polling holds no inotify watch (Linux: counted from this process's inotify descriptors).
    if (fs.existsSync('/proc/self/fdinfo')) expect(inotifyWatches()).toBe(0);
    fx.write('src/polled/p.txt', 'Found by polling.\n');
    await waitFor(
      'polled output',
      () => fx.exists('out/de/polled/p.txt') && fx.exists('out/fr/polled/p.txt'),
    );
    await w.runner.settle();
    const mark = fx.mark();
    const before = ['de', 'fr'].map((l) => fx.read(`out/${l}/polled/p.txt`));
    fs.writeFileSync(path.join(fx.src, 'polled/p.txt'), 'Edited, found by polling.\n');
    await waitFor('the edit translated', () =>
      ['de', 'fr'].every((l, i) => fx.read(`out/${l}/polled/p.txt`) !== before[i]),
    );
    await w.runner.settle();
    expect(fx.uploads(mark).map((u) => u.filename)).toEqual(['p.txt', 'p.txt']);
    fs.rmSync(path.join(fx.src, 'polled/p.txt'));
    await waitFor('deletion seen by polling', () => w!.state.getFile('docs', 'polled/p.txt') === undefined);
  });
});
