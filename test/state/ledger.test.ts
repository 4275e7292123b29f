import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, type StateStore } from '../../src/state/store.js';
import type { NewJob } from '../../src/state/types.js';

// The job ledger's named transitions on a real state.db, without the service: each writes what it
// says and answers the fresh row.

let dir: string;
let state: StateStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-ledger-'));
  state = openState(path.join(dir, 'state.db'));
});
afterEach(() => {
  state.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const job = (over: Partial<NewJob> = {}): NewJob => ({
  mapping: 'docs',
  rel_path: 'a.txt',
  sha256: 'a'.repeat(64),
  target_lang: 'de',
  fingerprint: 'fp',
  base_fingerprint: 'base',
  output_path: 'out/de/a.txt',
  run_id: 1,
  request: '{"target_lang":"DE"}',
  ...over,
});

describe('job ledger transitions', () => {
  it('created → upload started → uploaded → downloading → done, each answering the fresh row', async () => {
    const l = state.jobs;
    const created = await l.created(job());
    expect(created).toMatchObject({
      status: 'pending',
      attempts: 0,
      document_id: null,
      upload_started_at: null,
    });
    const started = await l.uploadStarted(created, 5);
    expect(started).toMatchObject({ status: 'pending', attempts: 1, run_id: 5 });
    expect(started.upload_started_at).not.toBeNull();
    const uploaded = await l.uploaded(started, 'doc-1', 'key-1');
    expect(uploaded).toMatchObject({ status: 'uploaded', document_id: 'doc-1', document_key: 'key-1' });
    expect((await l.open()).map((j) => j.id)).toEqual([created.id]);
    const downloading = await l.downloading(uploaded, 120, 1_700_000_000_000);
    expect(downloading).toMatchObject({ billed_characters: 120, download_started_ms: 1_700_000_000_000 });
    const done = await l.done(downloading, 120);
    expect(done).toMatchObject({ status: 'done', billed_characters: 120, error: null });
    expect(done.finished_at).not.toBeNull();
    expect(await l.open()).toEqual([]);
    expect((await l.latestDoneOf('out/de/a.txt'))?.id).toBe(done.id);
    expect(await state.jobs.get(done.id)).toEqual(done);
  });

  it('done voids the no-op marks that vouched for the output (verified mark, snapshots)', async () => {
    state.putFile({ mapping: 'docs', rel_path: 'a.txt', size: 1, mtime_ms: 1, sha256: 'a'.repeat(64) });
    await state.files.verify('docs', 42, ['a.txt']);
    await state.files.setSnapshot('docs', { digest: 'd', outputDirs: [], outputsDigest: 'o' }, 1);
    expect((await state.files.get('docs', 'a.txt'))?.verified).toBe(42);
    const l = state.jobs;
    const j = await l.uploaded(await l.uploadStarted(await l.created(job()), 1), 'd', 'k');
    await l.done(j, 3);
    expect((await state.files.get('docs', 'a.txt'))?.verified).toBeNull();
    expect(await state.files.snapshot('docs')).toBeUndefined();
  });

  it('lost download: id and key dropped, counted; the re-upload does not use up an attempt', async () => {
    const l = state.jobs;
    const uploaded = await l.uploaded(await l.uploadStarted(await l.created(job()), 1), 'doc-1', 'key-1');
    const lost = await l.lostDownload(uploaded);
    expect(lost).toMatchObject({
      status: 'pending',
      document_id: null,
      document_key: null,
      lost_downloads: 1,
      error_kind: 'lost-download',
      error: 'lost download of document doc-1',
    });
    const again = await l.uploadStarted(lost, 2, 'lost-download');
    expect(again.attempts).toBe(1);
    expect(again.error).toBeNull();
    expect((await l.uploadStarted(again, 2)).attempts).toBe(2);
  });

  it('failed: a finished document loses its key; a collectable one keeps id, key and status', async () => {
    const l = state.jobs;
    const uploaded = await l.uploaded(await l.uploadStarted(await l.created(job()), 1), 'doc-1', 'key-1');
    const kept = await l.failed(uploaded, {
      kind: 'transient',
      error: 'status check failed',
      keepDocument: true,
      countsAttempt: true,
    });
    expect(kept).toMatchObject({
      status: 'uploaded',
      document_key: 'key-1',
      error_kind: 'transient',
      attempts: 1,
    });
    const failed = await l.failed(kept, {
      kind: 'job-error',
      error: 'bad document',
      keepDocument: false,
      countsAttempt: true,
    });
    expect(failed).toMatchObject({
      status: 'failed',
      document_id: 'doc-1',
      document_key: null,
      error: 'bad document',
    });
  });

  it('failed without counting the attempt gives the attempt back (quota, stop)', async () => {
    const l = state.jobs;
    const started = await l.uploadStarted(await l.created(job()), 1);
    const failed = await l.failed(started, {
      kind: 'quota',
      error: '456',
      keepDocument: false,
      countsAttempt: false,
    });
    expect(failed).toMatchObject({ status: 'failed', attempts: 0, error_kind: 'quota' });
  });

  it('superseded: a row never sent is removed; one with an earlier attempt is kept and marked', async () => {
    const l = state.jobs;
    const unsent = await l.created(job());
    expect(await l.superseded(unsent, 'replaced')).toBeUndefined();
    expect(await l.get(unsent.id)).toBeUndefined();
    const tried = await l.failed(await l.uploadStarted(await l.created(job()), 1), {
      kind: 'transient',
      error: '503',
      keepDocument: false,
      countsAttempt: false,
    });
    const marked = await l.superseded(tried, 'replaced');
    expect(marked).toMatchObject({
      status: 'failed',
      error_kind: 'superseded',
      error: 'replaced',
      document_key: null,
    });
  });

  it('reused: a done row at once, nothing billed, pointing at its donor', async () => {
    const l = state.jobs;
    const donor = await l.done(
      await l.uploaded(await l.uploadStarted(await l.created(job()), 1), 'd', 'k'),
      10,
    );
    const copy = await l.reused(job({ rel_path: 'b.txt', output_path: 'out/de/b.txt' }), donor.id);
    expect(copy).toMatchObject({ status: 'done', reused_from: donor.id, billed_characters: 0 });
    expect((await l.doneWithContent('a'.repeat(64), 'fp')).map((j) => j.output_path)).toEqual([
      'out/de/a.txt',
      'out/de/b.txt',
    ]);
  });

  it('taken up by a later run, and an unconfirmed upload counted', async () => {
    const l = state.jobs;
    const started = await l.uploadStarted(await l.created(job()), 1);
    const taken = await l.takenUp(started, 7, '{"target_lang":"DE","formality":"more"}');
    expect(taken).toMatchObject({ run_id: 7, request: '{"target_lang":"DE","formality":"more"}' });
    expect((await l.unconfirmedUpload(taken)).unconfirmed_uploads).toBe(1);
  });

  it('a run records how it ended and why', async () => {
    const id = await state.runs.start('sync');
    await state.runs.finish(id, { status: 'interrupted', reason: 'signal' }, { translated: 1 }, 5);
    expect(state.getRun(id)).toMatchObject({ status: 'interrupted', reason: 'signal', billed_characters: 5 });
  });
});
