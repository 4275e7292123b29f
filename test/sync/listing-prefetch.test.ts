import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadManifest } from '../../src/manifest/load.js';
import { ManifestFolders } from '../../src/sync/plan/folders.js';
import { listSourceFiles, type FoundFile } from '../../src/sync/plan/list-sources.js';
import { ListingPrefetch, listingJob, PrefetchedTree } from '../../src/sync/plan/listing-prefetch.js';
import { listingDigest } from '../../src/sync/plan/output-listing.js';

// A sync lists its source folders in worker threads while it gets ready (listing-prefetch.ts). What a
// worker hands over must be the listing the scan would have made itself, file for file and number
// for number, and its digest the same: else a no-op is missed, or worse, a file is taken for gone.

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-prefetch-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(rel: string, text = 'Hello.\n'): void {
  fs.mkdirSync(path.dirname(path.join(dir, 'src', rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src', rel), text);
}

/** A tree with what a listing must get right: odd names, ignores, links, an excluded folder, an unsupported file. */
function makeTree(): void {
  for (let i = 0; i < 40; i++) write(`d${i % 4}/sub${i % 3}/f${i}.txt`, `Document ${i}.\n`);
  write('a b/line\nbreak.txt');
  write('rtl/\u202Egnp.txt');
  write('back\\slash.html', '<p>Hi</p>');
  write('-leading.srt', '1\n00:00:01,000 --> 00:00:02,000\nHi\n');
  write('~$locked.docx');
  write('.hidden.txt');
  write('notes.xyz');
  write('drafts/skip.txt');
  fs.symlinkSync(path.join(dir, 'src', 'd0'), path.join(dir, 'src', 'linked-folder'));
  fs.symlinkSync(path.join(dir, 'src', 'd1', 'sub1', 'f1.txt'), path.join(dir, 'src', 'linked.txt'));
  fs.writeFileSync(
    path.join(dir, 'pipeline.yaml'),
    stringify({
      version: 1,
      service: { url: 'http://127.0.0.1:9', key_env: 'LOCSYNC_TEST_PREFETCH_KEY' },
      mappings: [
        {
          name: 'docs',
          source: 'src',
          exclude: ['drafts/**'],
          output: 'out/{lang}/{path}',
          targets: [{ lang: 'de' }],
        },
      ],
    }),
  );
}

const numbers = (files: readonly FoundFile[]) =>
  files.map((f) => [f.relPath, f.absPath, f.size, f.mtimeMs, f.ino, f.ctimeMs]);

describe('source listings made in a worker thread', () => {
  it('are the listing the scan makes itself: the same files, numbers, paths, problems and digest', async () => {
    makeTree();
    const loaded = await loadManifest(path.join(dir, 'pipeline.yaml'));
    const folders = new ManifestFolders(loaded);
    const m = loaded.manifest.mappings[0]!;
    const job = listingJob(folders, m);
    const prefetch = ListingPrefetch.start(loaded, folders, { fromSources: true });
    const tree = await prefetch.take(job);
    // Made by the worker (not the scan's own walk, which the sync falls back to).
    expect(tree).toBeInstanceOf(PrefetchedTree);
    const own = await listSourceFiles(job.src, job.include, job.ignore, job.opts);
    expect(tree!.count).toBe(own.files.length);
    expect(numbers(tree!.files)).toEqual(numbers(own.files));
    expect(tree!.files.map((f) => f.relPath)).toContain('a b/line\nbreak.txt');
    expect(tree!.files.map((f) => f.relPath)).not.toContain('drafts/skip.txt');
    expect(tree!.unsupported).toEqual(own.unsupported);
    expect(tree!.problems).toEqual(own.problems);
    const signature = (_m: unknown, ext: string) => ext.length * 7 + 1;
    expect(await tree!.digest((ext) => signature(m, ext))).toBe(listingDigest(m, own.files, signature));
    prefetch.close();
  });

  it('are not used for other rules than they were made with, nor twice', async () => {
    makeTree();
    const loaded = await loadManifest(path.join(dir, 'pipeline.yaml'));
    const folders = new ManifestFolders(loaded);
    const job = listingJob(folders, loaded.manifest.mappings[0]!);
    const prefetch = ListingPrefetch.start(loaded, folders, { fromSources: true });
    expect(await prefetch.take({ ...job, ignore: [] })).toBeUndefined();
    expect(await prefetch.take(job)).toBeInstanceOf(PrefetchedTree);
    expect(await prefetch.take(job)).toBeUndefined();
    prefetch.close();
  });
});
