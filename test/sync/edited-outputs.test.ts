import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { DocumentClient } from '../../src/sync/run/job-driver.js';
import { API_KEY, createFixture, type Fixture } from './fixture.js';

// Corrections made by people are never overwritten (docs/review.md): an output that differs from
// what locsync wrote is kept; a new translation goes beside it, and the pair is a conflict that
// `status` names (exit 1) until `locsync outputs keep|take-new` resolves it. Runs on both backends.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const env = { LOCSYNC_TEST_SYNC_KEY: API_KEY };
const CORRECTED = 'Von einer Person korrigiert.\n';
const cli = (f: Fixture, ...args: string[]) =>
  runCli([...args, '-c', f.manifestPath], { env, cwd: f.dir, timeoutMs: 60_000 });

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
  it('are left alone: no source change uploads nothing; a source change puts the new translation beside the edit', async () => {
    fx = await createFixture({ files: { 'guide.txt': 'Hello world.\n' } });
    expect((await fx.sync()).failed).toEqual([]);
    const machineFr = fx.read('out/fr/guide.txt');
    fx.write('out/de/guide.txt', CORRECTED);

    const mark = fx.mark();
    await fx.sync();
    expect(fx.uploads(mark)).toHaveLength(0);
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
    const quiet = await cli(fx, 'status', '--json');
    expect(quiet.code).toBe(0);
    expect(JSON.parse(quiet.stdout).edited).toEqual([
      expect.objectContaining({ output: 'out/de/guide.txt', new_translation: null }),
    ]);

    fx.write('src/guide.txt', 'Hello world, again.\n');
    // plan says beforehand where the new translation will go.
    const plan = JSON.parse((await cli(fx, 'plan', '--json')).stdout);
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

    const status = await cli(fx, 'status');
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('out/de/guide.txt <> out/de/guide.locsync-new.txt');
    expect(status.stdout).toContain('locsync outputs keep out/de/guide.txt');
    const json = JSON.parse((await cli(fx, 'status', '--json')).stdout);
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
  });

  it('outputs keep: the edit wins and stays protected; status is well again', async () => {
    fx = await conflicted();
    const r = await cli(fx, 'outputs', 'keep', 'out/de/guide.txt');
    expect(r.code).toBe(0);
    expect(fx.read('out/de/guide.txt')).toBe(CORRECTED);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(false);
    expect((await cli(fx, 'status')).code).toBe(0);
    // Nothing left to resolve: refused, with a clear message.
    const none = await cli(fx, 'outputs', 'keep', 'out/de/guide.txt');
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
    const r = await cli(fx, 'outputs', 'take-new', 'out/de/guide.txt');
    expect(r.code).toBe(0);
    expect(fx.read('out/de/guide.txt')).toBe(fresh);
    expect(fx.read('out/de/guide.locsync-edited.txt')).toBe(CORRECTED);
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(false);
    const status = await cli(fx, 'status', '--json');
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
    const refused = await cli(fx, 'sync', '--overwrite-edits');
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
    const client: DocumentClient = {
      uploadDocument: (...a) => real.uploadDocument(...a),
      getDocumentStatus: (...a) => real.getDocumentStatus(...a),
      downloadDocument: (id, key, dest, opts) => {
        if (dest.endsWith(path.join('de', 'guide.txt'))) fs.writeFileSync(dest, CORRECTED);
        return real.downloadDocument(id, key, dest, opts);
      },
    };
    expect((await f.sync({ client })).failed).toEqual([]);
    expect(f.read('out/de/guide.txt')).toBe(CORRECTED);
    expect(f.exists('out/de/guide.locsync-new.txt')).toBe(true);
  });
});
