import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  billingReport,
  failedJobs,
  jobsInFlight,
  minimumJobsToCount,
  repeatedUploads,
} from '../../src/report/queries.js';
import { openState, type JobRecord, type StateStore } from '../../src/state/store.js';
import { insertChargeRow, insertJobRow, setJobRow } from '../helpers/job-rows.js';

// The billing and status queries over a real state.db written through the store's own API.

let dir: string;
let state: StateStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-report-'));
  state = openState(path.join(dir, 'state.db'));
});
afterEach(() => {
  state.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
function job(
  relPath: string,
  target: string,
  fields: Partial<Omit<JobRecord, 'id' | 'created_at'>>,
  mapping = 'docs',
): JobRecord {
  seq++;
  const j = insertJobRow(state, {
    mapping,
    rel_path: relPath,
    sha256: `sha-${relPath}`,
    target_lang: target,
    fingerprint: `fp-${target}`,
    base_fingerprint: `base-${target}`,
    output_path: `out/${target}/${relPath}#${seq}`,
    run_id: 1,
  });
  setJobRow(state, j.id, fields);
  const row = state.getJob(j.id)!;
  // The ledger's record of the bill (src/state/billed.ts), made when the document was translated.
  if (row.billed_characters && row.reused_from === null)
    insertChargeRow(state, row, row.billed_characters, row.finished_at ?? row.updated_at);
  return row;
}

const done = (billed: number, finished: string, extra: Partial<JobRecord> = {}) => ({
  status: 'done' as const,
  billed_characters: billed,
  finished_at: finished,
  document_id: `D${seq}`,
  document_key: `K${seq}-secret`,
  ...extra,
});

describe('billingReport', () => {
  it('sums billed characters per language, month and mapping, with minimums and reuse apart', () => {
    job('a.txt', 'de', done(120, '2026-01-10T10:00:00Z'));
    job('b.docx', 'de', done(50_000, '2026-01-11T10:00:00Z', { source_characters: 1_200 }));
    job('b.docx', 'fr', done(50_000, '2026-02-01T10:00:00Z'));
    job('big.pdf', 'fr', done(73_000, '2026-02-02T10:00:00Z'));
    job('small.txt', 'fr', done(50_000, '2026-02-03T10:00:00Z'), 'web'); // txt: no minimum
    job('copy.docx', 'de', done(0, '2026-02-04T10:00:00Z', { reused_from: 2 }));
    job('x.txt', 'de', { status: 'failed', error: 'boom', error_kind: 'job-error' });

    const byLang = billingReport(state, { by: 'language', counts: new Map([['sha-b.docx', 900]]) });
    expect(byLang.rows.map((r) => r.key)).toEqual(['de', 'fr']);
    const de = byLang.rows[0]!;
    expect(de).toMatchObject({
      documents: 2,
      billed_characters: 120 + 50_000,
      minimum_documents: 1,
      minimum_billed_characters: 50_000,
      // The recorded real count wins over a counted one.
      minimum_added_characters: 50_000 - 1_200,
      minimum_unknown_documents: 0,
      reused_documents: 1,
    });
    const fr = byLang.rows[1]!;
    expect(fr).toMatchObject({
      documents: 3,
      billed_characters: 50_000 + 73_000 + 50_000,
      minimum_documents: 1,
      minimum_added_characters: 50_000 - 900,
    });
    expect(byLang.total.billed_characters).toBe(de.billed_characters + fr.billed_characters);
    expect(byLang.total.minimum_added_characters).toBe(50_000 - 1_200 + 50_000 - 900);

    const byMonth = billingReport(state, { by: 'month' });
    expect(byMonth.rows.map((r) => [r.key, r.documents])).toEqual([
      ['2026-01', 2],
      ['2026-02', 3],
    ]);
    // Without a count for the fr docx its added characters are unknown, not guessed.
    expect(byMonth.rows[1]).toMatchObject({
      minimum_documents: 1,
      minimum_added_characters: null,
      minimum_unknown_documents: 1,
    });

    const byMapping = billingReport(state, { by: 'mapping' });
    expect(byMapping.rows.map((r) => [r.key, r.billed_characters])).toEqual([
      ['docs', 120 + 50_000 + 50_000 + 73_000],
      ['web', 50_000],
    ]);
    // Nothing billed at the minimum: the minimum added nothing (known), not "?".
    expect(byMapping.rows[1]).toMatchObject({ minimum_documents: 0, minimum_added_characters: 0 });

    const since = billingReport(state, { by: 'language', since: '2026-02-01T00:00:00.000Z' });
    expect(since.total.documents).toBe(3);
    expect(since.total.billed_characters).toBe(50_000 + 73_000 + 50_000);
  });

  it('lists for counting only minimum documents whose source is still the one translated', () => {
    job('b.docx', 'de', done(50_000, '2026-01-11T10:00:00Z'));
    job('c.pptx', 'de', done(50_000, '2026-01-11T10:00:00Z'));
    job('d.docx', 'de', done(50_000, '2026-01-11T10:00:00Z', { source_characters: 10 }));
    state.putFile({ mapping: 'docs', rel_path: 'b.docx', size: 1, mtime_ms: 1, sha256: 'sha-b.docx' });
    state.putFile({ mapping: 'docs', rel_path: 'c.pptx', size: 1, mtime_ms: 1, sha256: 'changed since' });
    state.putFile({ mapping: 'docs', rel_path: 'd.docx', size: 1, mtime_ms: 1, sha256: 'sha-d.docx' });
    expect(minimumJobsToCount(state)).toEqual([
      { mapping: 'docs', rel_path: 'b.docx', sha256: 'sha-b.docx' },
    ]);
  });
});

describe('status queries', () => {
  it('in flight: recorded uploads and started uploads; failures: not those done later', () => {
    const waiting = job('a.txt', 'de', {
      status: 'uploaded',
      document_id: 'DOC1',
      document_key: 'KEY1-secret',
      upload_started_at: '2026-01-01T00:00:00Z',
    });
    job('b.txt', 'de', { status: 'pending' }); // queued, never started: not in flight
    job('c.txt', 'de', { status: 'failed', error: 'first try', error_kind: 'job-error' });
    job('c.txt', 'de', done(10, '2026-01-02T00:00:00Z'));
    const failed = job('d.txt', 'fr', { status: 'failed', error: 'quota', error_kind: 'quota', attempts: 1 });
    expect(jobsInFlight(state).map((j) => j.id)).toEqual([waiting.id]);
    expect(failedJobs(state).map((j) => j.id)).toEqual([failed.id]);
  });
});

describe('repeatedUploads', () => {
  it('keeps a document whose upload was repeated in view after the retry succeeded, with what it may have cost', () => {
    job('plain.txt', 'de', done(100, '2026-02-01T10:00:00Z'));
    job('retried.txt', 'de', done(2_000, '2026-02-02T10:00:00Z', { unconfirmed_uploads: 1 }));
    job(
      'lost.docx',
      'fr',
      done(50_000, '2026-02-03T10:00:00Z', { lost_downloads: 1, unconfirmed_uploads: 1 }),
    );
    job('waiting.txt', 'de', { status: 'failed', unconfirmed_uploads: 1, source_characters: 300 });

    const rows = repeatedUploads(state);
    expect(rows.map((r) => [r.file, r.possibly_extra_characters])).toEqual(
      expect.arrayContaining([
        ['retried.txt', 2_000],
        // The lost download was bought again for sure; the lost answer only possibly.
        ['lost.docx', 50_000],
        ['waiting.txt', 300],
      ]),
    );
    expect(rows.find((r) => r.file === 'lost.docx')?.surely_extra_characters).toBe(50_000);
    expect(rows).toHaveLength(3);
    expect(repeatedUploads(state, '2026-02-03T00:00:00Z').map((r) => r.file)).toContain('lost.docx');
    expect(repeatedUploads(state, '2026-02-03T00:00:00Z').map((r) => r.file)).not.toContain('retried.txt');
  });
});
