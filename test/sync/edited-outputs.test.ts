import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { openRunState } from '../../src/cli/open-state.js';
import { silentLogger } from '../../src/log/logger.js';
import type { DocumentClient } from '../../src/sync/run/document-method.js';
import { createWatchRunner } from '../../src/watch/runner.js';
import { createFixture, FAST_POLL, runCliOn, uploadedUnits, type Fixture } from './fixture.js';

// Corrections made by people are never overwritten (docs/review.md): an output that differs from
// what locsync wrote is kept; a new translation goes beside it, and the pair is a conflict that
// `status` names (exit 1) until `locsync outputs keep|take-new` resolves it. Runs on both backends.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const CORRECTED = 'Von einer Person korrigiert.\n';

/** A translated guide whose German output a reviewer corrected, then a changed source synced. */
async function conflicted(): Promise<Fixture> {
  const f = await createFixture({ files: { 'guide.txt': 'Hello world.\n' } });
  expect((await f.sync()).failed).toEqual([]);
  f.write('out/de/guide.txt', CORRECTED);
  f.write('src/guide.txt', 'Hello world, again.\n');
  expect((await f.sync()).failed).toEqual([]);
  return f;
}

describe('outputs edited by people', () => {
  // Several CLI processes and syncs: minutes on a loaded machine, not a hang.
  it('are left alone: no source change uploads nothing; a source change puts the new translation beside the edit', async () => {
    fx = await createFixture({ files: { 'guide.txt': 'Hello world.\n' } });
    expect((await fx.sync()).failed).toEqual([]);
    const machineFr = fx.read('out/fr/guide.txt');
    fx.write('out/de/guide.txt', CORRECTED);

    const mark = fx.mark();
    await fx.sync();
    expect(fx.uploads(mark)).toHaveLength(0);
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
    const quiet = await runCliOn(fx, 'status', '--json');
    expect(quiet.code).toBe(0);
    expect(JSON.parse(quiet.stdout).edited).toEqual([
      expect.objectContaining({ output: 'out/de/guide.txt', new_translation: null }),
    ]);

    fx.write('src/guide.txt', 'Hello world, again.\n');
    // plan says beforehand where the new translation will go.
    const plan = JSON.parse((await runCliOn(fx, 'plan', '--json')).stdout);
    expect(plan.edited).toEqual([
      expect.objectContaining({ output: 'out/de/guide.txt', new_translation_planned: true }),
    ]);
    const s = await fx.sync();
    expect(s.failed).toEqual([]);
    expect(fx.uploads(mark)).toHaveLength(2);
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(true);
    expect(fx.read('out/de/guide.locsync-new.txt')).not.toBe(CORRECTED);
    // The output nobody edited is replaced as always.
    expect(fx.read('out/fr/guide.txt')).not.toBe(machineFr);
    expect(fx.exists('out/fr/guide.locsync-new.txt')).toBe(false);

    const status = await runCliOn(fx, 'status');
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('out/de/guide.txt <> out/de/guide.locsync-new.txt');
    expect(status.stdout).toContain('locsync outputs keep out/de/guide.txt');
    const json = JSON.parse((await runCliOn(fx, 'status', '--json')).stdout);
    expect(json.edited).toEqual([
      expect.objectContaining({
        output: 'out/de/guide.txt',
        new_translation: 'out/de/guide.locsync-new.txt',
      }),
    ]);

    // A sync meanwhile changes nothing: the conflict waits for a person.
    const again = fx.mark();
    await fx.sync();
    expect(fx.uploads(again)).toHaveLength(0);
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
  }, 180_000);

  it('outputs keep: the edit wins and stays protected; status is well again', async () => {
    fx = await conflicted();
    const r = await runCliOn(fx, 'outputs', 'keep', 'out/de/guide.txt');
    expect(r.code).toBe(0);
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(false);
    expect((await runCliOn(fx, 'status')).code).toBe(0);
    // Nothing left to resolve: refused, with a clear message.
    const none = await runCliOn(fx, 'outputs', 'keep', 'out/de/guide.txt');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('nothing to resolve');
    // The next source change is put beside the kept edit again.
    fx.write('src/guide.txt', 'Hello world, third.\n');
    await fx.sync();
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(true);
  });

  it('outputs take-new: the new translation wins, the edit is kept as a backup; status is well again', async () => {
    fx = await conflicted();
    const fresh = fx.read('out/de/guide.locsync-new.txt');
    const r = await runCliOn(fx, 'outputs', 'take-new', 'out/de/guide.txt');
    expect(r.code).toBe(0);
    expect(fx.read('out/de/guide.txt')).toBe(fresh);
    expect(fx.read('out/de/guide.locsync-edited.txt')).toBe(CORRECTED);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(false);
    const status = await runCliOn(fx, 'status', '--json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).edited).toEqual([]);
    // Taken as locsync's own again: the next source change replaces it.
    fx.write('src/guide.txt', 'Hello world, third.\n');
    await fx.sync();
    expect(fx.read('out/de/guide.txt')).not.toBe(fresh);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(false);
  });

  it('--overwrite-edits replaces an edited output (an explicit choice, refused off a terminal without --yes)', async () => {
    fx = await createFixture({ files: { 'guide.txt': 'Hello world.\n' } });
    await fx.sync();
    fx.write('out/de/guide.txt', CORRECTED);
    fx.write('src/guide.txt', 'Hello world, again.\n');
    const refused = await runCliOn(fx, 'sync', '--overwrite-edits');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--overwrite-edits replaces outputs people have edited');
    expect(refused.stderr).toContain('needs --yes');
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
    await fx.sync({ overwriteEdits: true });
    expect(fx.read('out/de/guide.txt')).not.toBe(CORRECTED);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(false);
  });

  it('an output edited while the sync downloads its new translation is seen at the rename', async () => {
    fx = await createFixture({ files: { 'guide.txt': 'Hello world.\n' } });
    await fx.sync();
    fx.write('src/guide.txt', 'Hello world, again.\n');
    const f = fx;
    const real = f.client();
    // The reviewer saves the correction after the download started, before it is put in place.
    const german = new Set<string>();
    const client: DocumentClient = {
      uploadDocument: async (file, req, o) => {
        const res = await real.uploadDocument(file, req, o);
        if (req.target_lang.toLowerCase() === 'de') german.add(res.document_id);
        return res;
      },
      getDocumentStatus: (...a) => real.getDocumentStatus(...a),
      downloadDocument: (id, key, dest, opts) => {
        if (german.has(id)) f.write('out/de/guide.txt', CORRECTED);
        return real.downloadDocument(id, key, dest, opts);
      },
    };
    expect((await f.sync({ client })).failed).toEqual([]);
    expect(f.read('out/de/guide.txt')).toBe(CORRECTED);
    expect(f.exists('out/de/guide.locsync-new.txt')).toBe(true);
  });
});

describe('outputs edited by people, in watch and with --retranslate', () => {
  it('sync --retranslate all: the edited output is kept, the new translation beside it', async () => {
    fx = await createFixture({ files: { 'guide.txt': 'Hello world.\n' } });
    await fx.sync();
    fx.write('out/de/guide.txt', CORRECTED);
    const mark = fx.mark();
    expect((await fx.sync({ retranslate: 'all' })).failed).toEqual([]);
    expect(fx.uploads(mark)).toHaveLength(2);
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(true);
    expect(fx.exists('out/fr/guide.locsync-new.txt')).toBe(false);
  });

  it('watch: a source change puts the new translation beside the edit, never over it', async () => {
    fx = await createFixture({
      files: { 'guide.txt': 'Hello world.\n' },
      manifest: { watch: { stability: 0.3, interval: 0.1, shutdown: 3, rescan_minutes: 60 } },
    });
    await fx.sync();
    fx.write('out/de/guide.txt', CORRECTED);
    const loaded = await fx.load();
    const opened = await openRunState(loaded, { logger: silentLogger(), command: 'watch', drives: true });
    const runner = createWatchRunner({
      loaded,
      state: opened.state,
      status: opened.status,
      connection: { client: fx.client() },
      logger: silentLogger(),
      poll: FAST_POLL,
    });
    try {
      await runner.start();
      await runner.settle();
      const f = fx;
      const machineFr = f.read('out/fr/guide.txt');
      f.write('src/guide.txt', 'Hello world, again.\n');
      const end = Date.now() + 30_000;
      while (!f.exists('out/de/guide.locsync-new.txt') || f.read('out/fr/guide.txt') === machineFr) {
        if (Date.now() > end) throw new Error('watch did not deliver the new translations');
        await sleep(100);
      }
      await runner.settle();
      expect(f.read('out/de/guide.txt')).toBe(CORRECTED);
    } finally {
      await runner.stop();
      await opened.close();
    }
  });

  it('*.locsync-new.* and *.locsync-edited.* files are never sources, wherever they are', async () => {
    // Such files in a source folder (outputs copied in, or a folder that holds both): ignored like
    // partial files, so a conflict's two files are never translated into a third.
    fx = await createFixture({
      files: {
        'guide.txt': 'Hello world.\n',
        'guide.locsync-new.txt': 'Hallo Welt (neu).\n',
        'guide.locsync-edited.txt': 'Hallo Welt (korrigiert).\n',
        'sub/notes.locsync-edited-2.txt': 'Notiz.\n',
        'README.locsync-new': 'no extension\n',
      },
    });
    const plan = JSON.parse((await runCliOn(fx, 'plan', '--json')).stdout);
    expect(JSON.stringify(plan)).not.toContain('locsync-new');
    expect(JSON.stringify(plan)).not.toContain('locsync-edited');
    const mark = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    expect(uploadedUnits(fx, mark)).toEqual(['guide.txt:DE', 'guide.txt:FR']);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(false);
  });
});
