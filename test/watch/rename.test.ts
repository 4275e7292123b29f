import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

// A file renamed over another of the same size and mtime, while watch runs: noticed by its inode
// and ctime both from native events and by polling, and given the translation of its new content.

let w: WatchFixture | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function renameOverTwin(poll: boolean): Promise<void> {
  w = await startWatchFixture({
    manifest: () => (poll ? { watch: { poll: true, interval: 0.1 } } : {}),
    files: { 'r1.txt': 'Apples are red.\n', 'r2.txt': 'Pears are gold.\n' },
  });
  const { fx } = w;
  const when = new Date('2026-01-02T03:04:05Z');
  for (const name of ['r1.txt', 'r2.txt']) fs.utimesSync(path.join(fx.src, name), when, when);
  // The first run may have seen them before their mtime was set: they are looked at again.
  await waitFor('both files recorded with their new mtime', () =>
    ['r1.txt', 'r2.txt'].every((n) => w!.state.getFile('docs', n)?.mtime_ms === when.getTime()),
  );
  await waitFor('initial outputs', () => fx.exists('out/de/r2.txt') && fx.exists('out/fr/r2.txt'));
  await w.runner.settle();
  const apples = ['de', 'fr'].map((l) => fx.read(`out/${l}/r1.txt`));
  expect(fx.read('out/de/r2.txt')).not.toBe(apples[0]);
  fs.renameSync(path.join(fx.src, 'r1.txt'), path.join(fx.src, 'r2.txt'));
  await waitFor(
    'r2.txt given the translation of its new content',
    () => ['de', 'fr'].every((l, i) => fx.read(`out/${l}/r2.txt`) === apples[i]),
    15_000,
  );
}

describe('watch: a rename over a file of the same size and mtime', () => {
  it('is noticed from native events', async () => {
    await renameOverTwin(false);
  });
  it('is noticed by polling', async () => {
    await renameOverTwin(true);
  });
});
