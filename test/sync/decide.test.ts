import { describe, expect, it } from 'vitest';
import { decide, type UnitFacts } from '../../src/sync/plan/decide.js';

// The decision function alone: every reason a (file, target) needs work or not, and which fact wins
// when several apply.

const SHA = 'a'.repeat(64);
const OTHER_SHA = 'b'.repeat(64);

function facts(over: Partial<UnitFacts> = {}): UnitFacts {
  return {
    sha256: SHA,
    fingerprint: 'fp-1',
    baseFingerprint: 'base-1',
    done: undefined,
    outputExists: false,
    open: undefined,
    donor: undefined,
    contentUnchanged: false,
    maxAttempts: 3,
    retranslate: new Set(),
    ...over,
  };
}

const doneWith = (sha: string, fp: string, base = 'base-1') => ({
  id: 7,
  sha256: sha,
  fingerprint: fp,
  base_fingerprint: base,
});
const openJob = (status: string, over: Partial<NonNullable<UnitFacts['open']>> = {}) => ({
  id: 9,
  sha256: SHA,
  fingerprint: 'fp-1',
  status,
  document_id: null,
  attempts: 1,
  ...over,
});

describe('decide: what a (file, target) needs', () => {
  it('nothing when its output holds this content with these settings', () => {
    expect(decide(facts({ done: doneWith(SHA, 'fp-1'), outputExists: true }))).toEqual({ kind: 'unchanged' });
  });

  it('an output up to date is written again when a translator wording was imported since', () => {
    const up = { done: doneWith(SHA, 'fp-1'), outputExists: true };
    expect(decide(facts({ ...up, wordingImported: true }))).toEqual({
      kind: 'translate',
      reason: 'wording-imported',
    });
    // The source changed as well: the change is the reason (the memory still has the wording).
    expect(decide(facts({ ...up, sha256: OTHER_SHA, wordingImported: true }))).toEqual({
      kind: 'translate',
      reason: 'changed',
    });
    // Re-saved with the same content (a catalog written in place always is): the wording is
    // written, not the re-save recorded (which would settle the note with nothing written).
    const resaved = { ...up, sha256: OTHER_SHA, contentUnchanged: true };
    expect(decide(facts(resaved))).toEqual({ kind: 'resaved', doneId: up.done.id });
    expect(decide(facts({ ...resaved, wordingImported: true }))).toEqual({
      kind: 'translate',
      reason: 'wording-imported',
    });
  });

  it('a translation of a file never translated (new)', () => {
    expect(decide(facts())).toEqual({ kind: 'translate', reason: 'new' });
  });

  it('a translation when the content changed', () => {
    expect(decide(facts({ done: doneWith(OTHER_SHA, 'fp-1'), outputExists: true }))).toEqual({
      kind: 'translate',
      reason: 'changed',
    });
  });

  it('nothing to buy when only the bytes changed (saved again, same content digest): re-saved', () => {
    const resaved = { done: doneWith(OTHER_SHA, 'fp-1'), outputExists: true, contentUnchanged: true };
    expect(decide(facts(resaved))).toEqual({ kind: 'resaved', doneId: 7 });
    // --retranslate all still re-translates it; other settings make it stale as the same bytes would.
    expect(decide(facts({ ...resaved, retranslate: new Set(['all'] as const) }))).toEqual({
      kind: 'translate',
      reason: 'requested',
    });
    expect(decide(facts({ ...resaved, done: doneWith(OTHER_SHA, 'fp-0', 'base-0') }))).toEqual({
      kind: 'stale',
      reason: 'settings',
    });
    // Its output gone: translated (nothing holds the translation any more).
    expect(decide(facts({ ...resaved, outputExists: false })).kind).toBe('translate');
  });

  it('stale (left alone, not billed) when the settings changed; re-translated on request', () => {
    const other = { done: doneWith(SHA, 'fp-0', 'base-0'), outputExists: true };
    expect(decide(facts(other))).toEqual({ kind: 'stale', reason: 'settings' });
    expect(decide(facts({ ...other, retranslate: new Set(['settings'] as const) }))).toEqual({
      kind: 'translate',
      reason: 'settings-changed',
    });
    expect(decide(facts({ ...other, retranslate: new Set(['style'] as const) }))).toEqual({
      kind: 'stale',
      reason: 'settings',
    });
    // Nothing on disk to keep: translated.
    expect(decide(facts({ ...other, outputExists: false }))).toEqual({
      kind: 'translate',
      reason: 'settings-changed',
    });
  });

  it('every output re-translated with --retranslate all, up to date ones too', () => {
    expect(
      decide(
        facts({ done: doneWith(SHA, 'fp-1'), outputExists: true, retranslate: new Set(['all'] as const) }),
      ),
    ).toEqual({ kind: 'translate', reason: 'requested' });
  });

  it('a translation when the output made for this content is gone from disk', () => {
    expect(decide(facts({ done: doneWith(SHA, 'fp-1'), outputExists: false }))).toEqual({
      kind: 'translate',
      reason: 'output-missing',
    });
  });

  it('stale (left alone, not billed) when only the style list changed; re-translated on request', () => {
    const older = { done: doneWith(SHA, 'fp-old-style', 'base-1'), outputExists: true };
    expect(decide(facts(older))).toEqual({ kind: 'stale', reason: 'style' });
    expect(decide(facts({ ...older, retranslate: new Set(['style'] as const) }))).toEqual({
      kind: 'translate',
      reason: 'stale',
    });
  });

  it('a copy of an identical translation elsewhere, not an upload', () => {
    const donor = { output: 'out/de/copy.txt', jobId: 4 };
    expect(decide(facts({ donor }))).toEqual({ kind: 'reuse', from: 'out/de/copy.txt', fromJobId: 4 });
    // ...also over a changed or stale output
    expect(decide(facts({ donor, done: doneWith(OTHER_SHA, 'fp-1'), outputExists: true }))).toMatchObject({
      kind: 'reuse',
    });
    expect(
      decide(facts({ donor, done: doneWith(SHA, 'fp-old', 'base-1'), outputExists: true })),
    ).toMatchObject({
      kind: 'reuse',
    });
  });

  it('resumes a recorded upload of this content (id and key kept), never uploads it again', () => {
    const open = openJob('uploaded', { document_id: 'doc-1' });
    expect(decide(facts({ open, donor: { output: 'x', jobId: 1 } }))).toEqual({ kind: 'resume', jobId: 9 });
  });

  it('retries a recorded job that failed or whose upload was never answered (its row is continued)', () => {
    expect(decide(facts({ open: openJob('failed', { attempts: 2 }) }))).toEqual({
      kind: 'translate',
      reason: 'retry',
      jobId: 9,
    });
    expect(decide(facts({ open: openJob('pending', { attempts: 1 }) }))).toEqual({
      kind: 'translate',
      reason: 'retry',
      jobId: 9,
    });
  });

  it('gives up after max_attempts failures', () => {
    expect(decide(facts({ open: openJob('failed', { attempts: 3 }) }))).toEqual({
      kind: 'gave-up',
      jobId: 9,
    });
  });

  it('says a translation whose paid download was lost is paid again (lost download)', () => {
    const open = openJob('pending', { attempts: 1, error_kind: 'lost-download' });
    expect(decide(facts({ open }))).toEqual({ kind: 'translate', reason: 'lost-download', jobId: 9 });
  });

  it('gives a kept document up once its output could not be written max_attempts times, else collects it', () => {
    const kept = (attempts: number) =>
      openJob('uploaded', { document_id: 'doc-1', attempts, error_kind: 'output' });
    expect(decide(facts({ open: kept(2) }))).toEqual({ kind: 'resume', jobId: 9 });
    expect(decide(facts({ open: kept(3) }))).toEqual({ kind: 'gave-up', jobId: 9 });
  });

  it("ignores a recorded job of other content or settings (the file changed since): that job is not this unit's", () => {
    expect(decide(facts({ open: openJob('uploaded', { sha256: OTHER_SHA, document_id: 'd' }) }))).toEqual({
      kind: 'translate',
      reason: 'new',
    });
    expect(decide(facts({ open: openJob('failed', { fingerprint: 'fp-0', attempts: 5 }) }))).toEqual({
      kind: 'translate',
      reason: 'new',
    });
  });

  it('an output that holds this content wins over a recorded job and a donor', () => {
    expect(
      decide(
        facts({
          done: doneWith(SHA, 'fp-1'),
          outputExists: true,
          open: openJob('uploaded', { document_id: 'd' }),
          donor: { output: 'x', jobId: 1 },
        }),
      ),
    ).toEqual({ kind: 'unchanged' });
  });
});
