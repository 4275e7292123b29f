import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { inotifyWatches, startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

// Folders coming and going under a running watcher: one native watch per folder, a folder renamed
// with its files, a folder deleted and created again, the whole source folder gone (an unmounted
// share) and back.

let w: WatchFixture | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const deOnly = (extra: Record<string, unknown> = {}) => ({
  mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
  ...extra,
});

/** `n` files spread over `folders` folders under `base` (relative to the source folder). */
function files(base: string, n: number, folders: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`${base}/g${i % folders}/f${i}.txt`] = `Document ${i} of ${base}.\n`;
  return out;
}

describe('locsync watch: folders', () => {
  it('holds one native watch per folder, not per file', async () => {
    w = await startWatchFixture({ manifest: () => deOnly(), files: files('tree', 200, 20) });
    const { fx, runner } = w;
    await waitFor('initial outputs', () => fx.exists('out/de/tree/g19/f199.txt'), 60_000);
    await runner.settle();
    // src, src/tree and its 20 folders; the manifest watcher holds a few more.
    const folders = 22;
    expect(runner.metrics.healthz().watched_folders).toBe(folders);
    if (fs.existsSync('/proc/self/fdinfo')) {
      expect(inotifyWatches()).toBeGreaterThanOrEqual(folders);
      expect(inotifyWatches()).toBeLessThan(folders + 10);
    }
  }, 90_000);

  it('a folder of files renamed at once is reused, not uploaded again; its new files are watched', async () => {
    w = await startWatchFixture({
      manifest: () => deOnly({ on_source_delete: 'delete' }),
      files: files('team', 300, 3),
    });
    const { fx, runner } = w;
    await waitFor('initial outputs', () => fx.exists('out/de/team/g2/f299.txt'), 60_000);
    await runner.settle();
    const translated = fx.read('out/de/team/g1/f1.txt');
    const mark = fx.mark();
    fs.renameSync(path.join(fx.src, 'team'), path.join(fx.src, 'renamed'));
    await waitFor(
      'outputs under the new name, the old ones deleted',
      () =>
        Object.keys(files('renamed', 300, 3)).every((rel) => fx.exists(`out/de/${rel}`)) &&
        !fs.existsSync(path.join(fx.dir, 'out/de/team/g0/f0.txt')),
      60_000,
    );
    await runner.settle();
    expect(fx.uploads(mark)).toEqual([]);
    expect(fx.read('out/de/renamed/g1/f1.txt')).toBe(translated);
    // The renamed folders are watched: a file written into one is translated.
    fx.write('src/renamed/g2/late.txt', 'Written after the rename.\n');
    await waitFor('a file written in a renamed folder', () => fx.exists('out/de/renamed/g2/late.txt'));
  }, 120_000);

  it('a folder deleted and created again: outputs follow, new files inside are seen', async () => {
    w = await startWatchFixture({
      manifest: () => deOnly({ on_source_delete: 'delete' }),
      files: { 'box/a.txt': 'A in the box.\n', 'box/inner/b.txt': 'B in the box.\n' },
    });
    const { fx, runner } = w;
    await waitFor('outputs', () => fx.exists('out/de/box/a.txt') && fx.exists('out/de/box/inner/b.txt'));
    await runner.settle();
    fs.rmSync(path.join(fx.src, 'box'), { recursive: true });
    await waitFor('outputs of the deleted folder removed', () => !fx.exists('out/de/box/a.txt'));
    await waitFor('nested too', () => !fx.exists('out/de/box/inner/b.txt'));
    // Created again, nested (mkdir -p), with a file written at once and one a moment later.
    fs.mkdirSync(path.join(fx.src, 'box/inner/deeper'), { recursive: true });
    fx.write('src/box/inner/deeper/c.txt', 'C, written with the folder.\n');
    await sleep(200);
    fx.write('src/box/inner/deeper/d.txt', 'D, written a moment later.\n');
    await waitFor(
      'files of the re-created folder translated',
      () => fx.exists('out/de/box/inner/deeper/c.txt') && fx.exists('out/de/box/inner/deeper/d.txt'),
    );
  });

  it('the source folder unmounted (moved away) deletes nothing, is reported, and is watched again when back', async () => {
    w = await startWatchFixture({
      manifest: () =>
        deOnly({ on_source_delete: 'delete', watch: { metrics: { host: '127.0.0.1', port: 0 } } }),
      files: files('share', 40, 4),
    });
    const { fx, runner } = w;
    const outputs = Object.keys(files('share', 40, 4)).map((rel) => `out/de/${rel}`);
    await waitFor('initial outputs', () => outputs.every((o) => fx.exists(o)), 60_000);
    await runner.settle();
    const away = path.join(fx.dir, 'unmounted');
    fs.renameSync(fx.src, away);
    await waitFor('health degraded', () => runner.metrics.healthz().ok === false);
    const res = await fetch(`${runner.metricsUrl}/healthz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; problem: string };
    expect(body.status).toBe('degraded');
    expect(body.problem).toContain(fx.src);
    expect(await (await fetch(`${runner.metricsUrl}/metrics`)).text()).toMatch(
      /^locsync_watcher_degraded 1$/m,
    );
    // Well past the stability window and the deletion delay: nothing was deleted.
    await sleep(3500);
    await runner.settle();
    expect(outputs.every((o) => fx.exists(o))).toBe(true);

    fs.renameSync(away, fx.src);
    await waitFor('healthy again', () => runner.metrics.healthz().ok, 20_000);
    fx.write('src/share/after.txt', 'Written once the share is back.\n');
    await waitFor('a file written after the return', () => fx.exists('out/de/share/after.txt'));
    await runner.settle();
    expect(outputs.every((o) => fx.exists(o))).toBe(true);
  }, 90_000);
});
