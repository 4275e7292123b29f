import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkSeed } from '../../bench/lib/bulk-seed.js';
import { translatingClient } from '../../bench/lib/seed-client.js';
import { withTempDir } from '../../bench/lib/tree.js';
import { silentLogger } from '../../src/log/logger.js';
import { loadManifest } from '../../src/manifest/load.js';
import { openState } from '../../src/state/store.js';
import { runSync } from '../../src/sync/engine.js';
import { STAT_THREAD_AFTER } from '../../src/sync/plan/walk-folders.js';
import type { DocumentClient } from '../../src/sync/run/document-method.js';

// The benchmarks' bulk seeding (bench/lib/bulk-seed.ts, issue 51): a tree, its outputs and a state
// recorded through JobLedger.deliveredInBulk, without a single upload, is a state a sync accepts as a
// first sync would have left it: a no-op uploads nothing, one file changed uploads that file alone.

/** A sync of `manifestPath` through the stand-in service; answers the summary and the uploads made. */
async function sync(manifestPath: string) {
  const loaded = await loadManifest(manifestPath);
  const state = openState(loaded.statePath);
  const inner = translatingClient();
  let uploads = 0;
  const client: DocumentClient = {
    ...inner,
    uploadDocument: (file, req, o) => {
      uploads++;
      return inner.uploadDocument(file, req, o);
    },
  };
  try {
    const s = await runSync({
      loaded,
      connection: { client },
      state,
      logger: silentLogger(),
      options: { poll: { initialMs: 0, minMs: 0 } },
    });
    return { ...s, uploads };
  } finally {
    state.close();
  }
}

describe('a state seeded in bulk', () => {
  // Beyond STAT_THREAD_AFTER files the walk stats on a second thread (stat-helper.ts).
  it.each([250, 3 * STAT_THREAD_AFTER])(
    'of %i files is a no-op for sync (0 uploads); one changed file is the one uploaded',
    async (files) => {
      await withTempDir('bulk-seed-test', async (dir) => {
        const manifestPath = await bulkSeed(dir, files, { key_env: 'LOCSYNC_TEST_BULK_KEY' });
        expect(fs.readFileSync(path.join(dir, 'out/de/d0/d1/f123.txt'), 'utf8')).toBe(
          '[seeded de] Document number 123. Hello world.\n',
        );
        // Every content's digest, as a first sync records them: the first no-op reads no file for one.
        const seeded = openState((await loadManifest(manifestPath)).statePath);
        try {
          const contents = [...(await seeded.files.contents('docs')).values()];
          expect(contents).toHaveLength(files);
          expect((await seeded.digests.known(contents)).size).toBe(files);
        } finally {
          seeded.close();
        }
        const first = await sync(manifestPath);
        expect(first).toMatchObject({ uploads: 0, translated: 0, unchanged: files, hashed: 0 });
        // The first no-op recorded the fast-path marks: the next one is as quiet.
        expect(await sync(manifestPath)).toMatchObject({
          uploads: 0,
          translated: 0,
          unchanged: files,
          hashed: 0,
        });
        fs.appendFileSync(path.join(dir, 'src/d0/d2/f200.txt'), 'Edited.\n');
        const changed = await sync(manifestPath);
        expect(changed).toMatchObject({ uploads: 1, translated: 1, unchanged: files - 1, hashed: 1 });
        expect(fs.readFileSync(path.join(dir, 'out/de/d0/d2/f200.txt'), 'utf8')).not.toContain('seeded');
      });
    },
  );
});
