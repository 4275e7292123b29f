import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { billedThisMonth, monthStart } from '../../src/billing/ledger.js';
import { openState, type StateStore } from '../../src/state/store.js';
import { insertChargeRow, insertJobRow, setJobRow } from '../helpers/job-rows.js';

// The monthly ledger over a real state.db written through the store's own API.

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

function billedJob(rel: string, billed: number | null, finishedAt: string | null, status = 'done'): void {
  const j = insertJobRow(state, {
    mapping: 'docs',
    rel_path: rel,
    sha256: `sha-${rel}`,
    target_lang: 'de',
    fingerprint: 'fp',
    base_fingerprint: 'base',
    output_path: `out/de/${rel}`,
    run_id: 1,
  });
  setJobRow(state, j.id, {
    status: status as 'done',
    billed_characters: billed,
    finished_at: finishedAt,
  });
  // The ledger's record of the bill, made when the service reported the document translated.
  if (billed)
    insertChargeRow(state, { ...j, document_id: `D-${rel}` }, billed, finishedAt ?? new Date().toISOString());
}

describe('the ledger of billed characters', () => {
  it('starts a month at its first UTC instant', () => {
    expect(monthStart(new Date('2026-11-23T20:18:07Z'))).toBe('2026-11-01T00:00:00.000Z');
    expect(monthStart(new Date('2026-01-01T00:00:00Z'))).toBe('2026-01-01T00:00:00.000Z');
  });

  it('sums what was billed in the month, not before it', async () => {
    billedJob('last-month.txt', 70_000, '2026-10-31T23:59:59.000Z');
    billedJob('a.txt', 1_000, '2026-11-02T10:00:00.000Z');
    billedJob('b.docx', 50_000, '2026-11-20T10:00:00.000Z');
    billedJob('not-billed.txt', null, null, 'failed');
    expect(await billedThisMonth(state, new Date('2026-11-23T12:00:00Z'))).toBe(51_000);
    expect(await state.jobs.billedSince('2026-10-01T00:00:00.000Z')).toBe(121_000);
  });

  it('counts a document billed but still being downloaded', async () => {
    billedJob('downloading.txt', 2_500, null, 'uploaded');
    expect(await billedThisMonth(state)).toBe(2_500);
  });
});
