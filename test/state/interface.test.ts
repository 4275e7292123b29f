import { afterEach, describe, expect, it } from 'vitest';
import type { NewJob } from '../../src/state/types.js';
import { stateBackends } from '../helpers/backends.js';

// The state interface as the sync engine uses it, the same suite for every backend: what one run
// records, the next run (a fresh open of the same state) finds.

const backends = await stateBackends();

const newJob = (over: Partial<NewJob> = {}): NewJob => ({
  mapping: 'docs',
  rel_path: 'a.docx',
  sha256: 'sha-a',
  target_lang: 'de',
  fingerprint: 'fp-1',
  base_fingerprint: 'base-1',
  output_path: 'out/de/a.docx',
  run_id: null,
  ...over,
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe.each(backends)('state interface on $name', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const fresh = async () => {
    const opened = await backend.open({ worker: 'sync' });
    cleanups.push(opened.close);
    return opened;
  };

  it('a job goes pending → uploaded → done, and a later open finds its id, key and billing', async () => {
    const opened = await fresh();
    let state = opened.state;
    const runId = await state.runs.start('sync');
    let job = await state.jobs.created(
      newJob({ run_id: runId, source_characters: 1200, request: '{"target_lang":"DE"}' }),
    );
    expect(job).toMatchObject({
      status: 'pending',
      attempts: 0,
      document_id: null,
      request: '{"target_lang":"DE"}',
    });
    job = await state.jobs.uploadStarted(job, runId);
    expect(job.attempts).toBe(1);
    expect(job.upload_started_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    job = await state.jobs.uploaded(job, 'DOC-1', 'KEY-secret-1');

    // The process stops; the next one (the next run, or another worker) resumes from the record.
    await opened.state.runs.finish(runId, { status: 'interrupted', reason: 'signal' }, {}, 0);
    await opened.closeThis();
    const { state: next } = await opened.reopen({ worker: 'sync' });
    const open = await next.jobs.open();
    expect(open.map((j) => [j.id, j.status, j.document_id, j.document_key])).toEqual([
      [job.id, 'uploaded', 'DOC-1', 'KEY-secret-1'],
    ]);
    job = open[0]!;
    state = next;
    // Several workers (PostgreSQL): a worker writes a job only while it holds its unit, claimed as it
    // takes the job up (a write without it is refused: another worker may have it).
    if (state.shared) {
      const took = await state.shared.take(job);
      if (!('job' in took)) throw new Error(`not taken: ${JSON.stringify(took)}`);
      job = took.job;
    }
    job = await state.jobs.downloading(job, 50_000, 1_700_000_000_000);
    expect(job.download_started_ms).toBe(1_700_000_000_000);
    // Received in full into a spool: recorded with its digest and whose spool holds it, until done.
    const holder = state.shared?.workerId ?? null;
    job = await state.jobs.spooled(job, { path: '/spool/DOC-1', sha256: 'sha-out', size: 321, holder });
    expect((await state.jobs.get(job.id))?.spool_path).toBe('/spool/DOC-1');
    expect(job).toMatchObject({ spool_sha256: 'sha-out', spool_size: 321, spool_holder: holder });
    if (state.shared && holder) expect(await state.shared.workerAlive(holder)).toBe(true);
    expect(await state.jobs.doneDocuments(['DOC-1'])).toEqual(new Set());
    job = await state.jobs.done(job, 50_000);
    expect(job).toMatchObject({ spool_path: null, spool_sha256: null, spool_size: null, spool_holder: null });
    expect(await state.jobs.doneDocuments(['DOC-1', 'DOC-2'])).toEqual(new Set(['DOC-1']));
    expect(job).toMatchObject({ status: 'done', billed_characters: 50_000, source_characters: 1200 });
    expect(job.finished_at).not.toBeNull();
    expect(await state.jobs.open()).toEqual([]);
    expect(await state.jobs.latestDoneOf('out/de/a.docx')).toMatchObject({ id: job.id, sha256: 'sha-a' });
    expect(await state.jobs.doneWithContent('sha-a', 'fp-1')).toEqual([
      { id: job.id, output_path: 'out/de/a.docx' },
    ]);
    expect((await state.jobs.doneOfSource('docs', 'a.docx')).map((j) => j.id)).toEqual([job.id]);

    await state.runs.finish(runId, { status: 'ok' }, { translated: 1 }, 50_000);
  });

  it('failures, lost downloads, reuse and superseded rows are recorded as the ledger names them', async () => {
    const { state } = await fresh();
    const runId = await state.runs.start('sync');
    let a = await state.jobs.uploadStarted(await state.jobs.created(newJob()), runId);
    a = await state.jobs.uploaded(a, 'DOC-A', 'KEY-aaaaaa');
    a = await state.jobs.failed(a, {
      kind: 'transient',
      error: 'poll timed out',
      keepDocument: true,
      countsAttempt: false,
    });
    expect(a).toMatchObject({
      status: 'uploaded',
      document_key: 'KEY-aaaaaa',
      attempts: 0,
      error_kind: 'transient',
    });
    a = await state.jobs.lostDownload(a);
    expect(a).toMatchObject({
      status: 'pending',
      document_id: null,
      lost_downloads: 1,
      error_kind: 'lost-download',
    });
    a = await state.jobs.uploadStarted(a, runId, 'lost-download');
    expect(a.attempts).toBe(0);
    a = await state.jobs.failed(a, {
      kind: 'job-error',
      error: 'bad file',
      keepDocument: false,
      countsAttempt: true,
    });
    expect(a).toMatchObject({ status: 'failed', document_key: null, error: 'bad file' });

    const b = await state.jobs.done(
      await state.jobs.created(newJob({ rel_path: 'b.docx', sha256: 'sha-b', output_path: 'out/de/b.docx' })),
      7,
    );
    const copy = await state.jobs.reused(
      newJob({ rel_path: 'copy/b.docx', sha256: 'sha-b', output_path: 'out/de/copy/b.docx' }),
      b.id,
    );
    expect(copy).toMatchObject({ status: 'done', reused_from: b.id, billed_characters: 0 });

    const never = await state.jobs.created(
      newJob({ rel_path: 'c.docx', sha256: 'sha-c', output_path: 'out/de/c.docx' }),
    );
    expect(await state.jobs.superseded(never, 'source changed')).toBeUndefined();
    expect(await state.jobs.get(never.id)).toBeUndefined();
    const sent = await state.jobs.uploadStarted(
      await state.jobs.created(newJob({ rel_path: 'd.docx', sha256: 'sha-d', output_path: 'out/de/d.docx' })),
      runId,
    );
    // Found unanswered when it was taken up again, then its source changed.
    expect(await state.jobs.unconfirmedUpload(sent)).toMatchObject({ unconfirmed_uploads: 1 });
    expect(await state.jobs.superseded(sent, 'source changed')).toMatchObject({
      status: 'failed',
      error_kind: 'superseded',
    });

    const index = await collect(state.jobs.doneIndex());
    expect(index.map((r) => r.output_path)).toEqual(['out/de/b.docx', 'out/de/copy/b.docx']);
    expect((await state.jobs.open()).map((j) => j.rel_path).sort()).toEqual(['a.docx', 'd.docx']);
  });

  it("a failure whose upload never left (uploads stopped before) gives back no attempt: an earlier upload's stays counted", async () => {
    const { state } = await fresh();
    const runId = await state.runs.start('sync');
    let a = await state.jobs.uploadStarted(await state.jobs.created(newJob()), runId);
    // Its answer was lost: maybe accepted, an attempt; uploaded again in this run.
    a = await state.jobs.failed(a, {
      kind: 'maybe-accepted',
      error: 'answer lost',
      keepDocument: false,
      countsAttempt: true,
      keepClaim: true,
    });
    expect(a.attempts).toBe(1);
    // Its repeat was refused by a budget cap before it left: that first attempt stays counted.
    a = await state.jobs.failed(a, {
      kind: 'budget',
      error: 'budget reached',
      keepDocument: false,
      countsAttempt: false,
      unsent: true,
    });
    expect(a).toMatchObject({ attempts: 1, error_kind: 'budget', unconfirmed_uploads: 1 });
  });

  it("a lost download's re-upload that fails without counting an attempt gives back none: the first upload's stays counted", async () => {
    const { state } = await fresh();
    const runId = await state.runs.start('sync');
    let a = await state.jobs.uploadStarted(await state.jobs.created(newJob()), runId);
    a = await state.jobs.uploaded(a, 'DOC-1', 'KEY-1');
    // The translation was lost before its download: uploaded again, which counts no attempt.
    a = await state.jobs.lostDownload(a);
    a = await state.jobs.uploadStarted(a, runId, 'lost-download');
    expect(a.attempts).toBe(1);
    // The re-upload met the quota (456): no attempt of its own to give back.
    a = await state.jobs.failed(a, {
      kind: 'quota',
      error: 'quota used up',
      keepDocument: false,
      countsAttempt: false,
      reupload: 'lost-download',
    });
    expect(a).toMatchObject({ status: 'failed', attempts: 1, error_kind: 'quota', lost_downloads: 1 });
  });

  it('outputs delivered in bulk: each file recorded, a done job with what it wrote, nothing billed', async () => {
    const { state } = await fresh();
    await state.files.setSnapshot('docs', { digest: 'd', outputDirs: ['out/de'], outputsDigest: 'o' }, 1);
    const since = new Date(Date.now() - 1000).toISOString();
    const outputs = [1, 2, 3].map((i) => ({
      source: {
        mapping: 'docs',
        rel_path: `f${i}.txt`,
        size: i,
        mtime_ms: 10 + i,
        sha256: `sha-${i}`,
        ino: i,
        ctime_ms: 20 + i,
      },
      job: newJob({
        rel_path: `f${i}.txt`,
        sha256: `sha-${i}`,
        output_path: `out/de/f${i}.txt`,
        request: '{"target_lang":"DE"}',
      }),
      written: { sha256: `out-${i}`, size: 100 + i, mtimeMs: 30 + i },
    }));
    expect(await state.jobs.deliveredInBulk(outputs)).toBe(3);
    expect(await state.files.get('docs', 'f2.txt')).toMatchObject({
      size: 2,
      mtime_ms: 12,
      ino: 2,
      ctime_ms: 22,
      sha256: 'sha-2',
    });
    const done = await state.jobs.latestDoneOfEach(outputs.map((o) => o.job.output_path));
    expect(done.map((d) => [d.output_path, d.sha256, d.fingerprint])).toEqual([
      ['out/de/f1.txt', 'sha-1', 'fp-1'],
      ['out/de/f2.txt', 'sha-2', 'fp-1'],
      ['out/de/f3.txt', 'sha-3', 'fp-1'],
    ]);
    expect(await state.jobs.get(done[0]!.id)).toMatchObject({
      status: 'done',
      attempts: 0,
      document_id: null,
      output_sha256: 'out-1',
      output_size: 101,
      output_mtime_ms: 31,
    });
    expect(await state.jobs.billedSince(since)).toBe(0);
    expect(await state.jobs.open()).toEqual([]);
    expect(await state.files.snapshot('docs')).toBeUndefined();
  });

  it('a scan records its hashed files in one call: every record kept, the snapshots of their mappings void', async () => {
    const { state } = await fresh();
    const files = state.files;
    const snap = { digest: 'd1', outputDirs: ['out/de'], outputsDigest: 'o1' };
    await files.setSnapshot('m', snap, 1);
    await files.setSnapshot('n', snap, 1);
    await files.putAll([]);
    expect(await files.snapshot('m')).toEqual(snap);
    await files.putAll([
      { mapping: 'm', rel_path: 'a.txt', size: 3, mtime_ms: 1.5, sha256: 'sha-a', ino: 7, ctime_ms: 2.5 },
      { mapping: 'm', rel_path: 'b.txt', size: 4, mtime_ms: 2, sha256: 'sha-b' },
    ]);
    expect(await files.contents('m')).toEqual(
      new Map([
        ['a.txt', 'sha-a'],
        ['b.txt', 'sha-b'],
      ]),
    );
    expect(await files.get('m', 'a.txt')).toMatchObject({ size: 3, ino: 7, ctime_ms: 2.5, verified: null });
    expect(await files.snapshot('m')).toBeUndefined();
    expect(await files.snapshot('n')).toEqual(snap);
  });

  it('the inventory keeps files, contents, verified marks and snapshots; a done job voids them', async () => {
    const { state } = await fresh();
    const files = state.files;
    // Inode and ctime exactly as fs.Stats gives them (a large inode, a ctime with a fraction of a ms).
    const ino = 2 ** 40 + 3;
    const ctime = 1_795_700_000_000.125;
    await files.put({
      mapping: 'm',
      rel_path: 'a.txt',
      size: 3,
      mtime_ms: 1.5,
      sha256: 'sha-a',
      ino,
      ctime_ms: ctime,
    });
    await files.put({ mapping: 'm', rel_path: 'c d/ü.txt', size: 4, mtime_ms: 2, sha256: 'sha-c' });
    await files.put({ mapping: 'n', rel_path: 'a.txt', size: 5, mtime_ms: 3, sha256: 'sha-n' });
    await files.verify('m', 7, ['a.txt']);
    await files.verify('m', 2 ** 47 + 5, ['c d/ü.txt']);
    expect([...(await files.listed('m')).values()].sort()).toEqual([
      ['a.txt', 3, 1.5, 7, ino, ctime],
      ['c d/ü.txt', 4, 2, 2 ** 47 + 5, null, null],
    ]);
    expect(await files.contents('n')).toEqual(new Map([['a.txt', 'sha-n']]));
    expect(await files.get('m', 'a.txt')).toMatchObject({ sha256: 'sha-a', verified: 7 });

    const snap = { digest: 'd1', outputDirs: ['out/de', 'out/fr'], outputsDigest: 'o1', outputsStamp: 's1' };
    await files.setSnapshot('m', snap, 2);
    // A snapshot whose output folders had not settled keeps no stamp.
    const { outputsStamp: _none, ...unstamped } = { ...snap, digest: 'd2' };
    await files.setSnapshot('n', unstamped, 1);
    expect(await files.snapshot('m')).toEqual(snap);
    expect(await files.snapshot('n')).toEqual(unstamped);
    await files.put({ mapping: 'm', rel_path: 'a.txt', size: 3, mtime_ms: 9, sha256: 'sha-a2' });
    expect(await files.snapshot('m')).toBeUndefined();
    expect((await files.get('m', 'a.txt'))?.verified).toBeNull();
    expect((await files.listed('m')).get('c d/ü.txt')?.[3]).toBe(2 ** 47 + 5);

    // The output of c d/ü.txt becomes done: its mark goes, and every snapshot.
    const job = await state.jobs.created(
      newJob({ mapping: 'm', rel_path: 'c d/ü.txt', sha256: 'sha-c', output_path: 'out/de/c d/ü.txt' }),
    );
    await state.jobs.done(job, 1);
    expect((await files.listed('m')).get('c d/ü.txt')?.[3]).toBeNull();
    expect(await files.snapshot('n')).toBeUndefined();

    await files.remove('m', 'a.txt');
    expect(await files.get('m', 'a.txt')).toBeUndefined();
  });

  it('a scan reads records a page at a time and contents and done jobs for a part of its files', async () => {
    const { state } = await fresh();
    const files = state.files;
    // More than a page of records (4,096) and of marks per statement.
    const rels = Array.from({ length: 4100 }, (_, i) => `d${i % 7}/f${i}.txt`);
    for (const [i, rel] of rels.entries())
      await files.put({
        mapping: 'm',
        rel_path: rel,
        size: i,
        mtime_ms: i + 0.5,
        sha256: `sha-${i}`,
        ino: i,
        ctime_ms: i,
      });
    await files.put({ mapping: 'other', rel_path: 'd0/f0.txt', size: 1, mtime_ms: 1, sha256: 'sha-o' });
    await files.verify('m', 5, rels);

    const pages: number[] = [];
    const seen = new Map<string, readonly unknown[]>();
    for await (const page of files.listedPages('m')) {
      pages.push(page.length);
      for (const row of page) seen.set(row[0], row);
    }
    expect(pages).toEqual([4096, 4]);
    expect(seen.size).toBe(4100);
    expect(seen.get('d3/f10.txt')).toEqual(['d3/f10.txt', 10, 10.5, 5, 10, 10]);
    expect(seen.get('d4/f4099.txt')).toEqual(['d4/f4099.txt', 4099, 4099.5, 5, 4099, 4099]);
    expect(await collect(files.listedPages('none'))).toEqual([]);

    expect(await files.contentsOf('m', ['d1/f1.txt', 'd2/f9.txt', 'gone.txt'])).toEqual(
      new Map([
        ['d1/f1.txt', 'sha-1'],
        ['d2/f9.txt', 'sha-9'],
      ]),
    );

    // Two jobs done for one output: the latest counts; an output without a done job has none.
    for (const sha of ['sha-old', 'sha-new']) {
      const job = await state.jobs.created(newJob({ sha256: sha, output_path: 'out/de/a.docx' }));
      await state.jobs.done(job, 1);
    }
    await state.jobs.done(
      await state.jobs.created(newJob({ rel_path: 'b.docx', output_path: 'out/de/b.docx' })),
      1,
    );
    await state.jobs.created(newJob({ rel_path: 'c.docx', output_path: 'out/de/c.docx' }));
    const each = await state.jobs.latestDoneOfEach(['out/de/a.docx', 'out/de/b.docx', 'out/de/c.docx', 'x']);
    expect(each.map((r) => [r.output_path, r.sha256]).sort()).toEqual([
      ['out/de/a.docx', 'sha-new'],
      ['out/de/b.docx', 'sha-a'],
    ]);
    expect(each.find((r) => r.output_path === 'out/de/a.docx')).toEqual(
      await state.jobs.latestDoneOf('out/de/a.docx'),
    );
  });
});
