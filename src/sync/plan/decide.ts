import type { RetranslateScope } from './retranslate.js';
import type { AcrossDonor, StaleReason, TranslateReason } from './types.js';

// The decision: what one (source file, target) needs, from the facts about it. Pure: every fact is
// looked up before (src/sync/plan/planner.ts) and the answer is data. Order matters: an output that
// holds this content with these settings is done; a recorded job for this content is continued
// before anything is uploaded anew; an identical translation elsewhere is copied before one is bought.

export interface UnitFacts {
  sha256: string;
  /** Settings fingerprint including the style list content. */
  fingerprint: string;
  /** The same without the style list content. */
  baseFingerprint: string;
  /**
   * With an explicit source_lang: both fingerprints as they are without it (outputs made while the
   * service detected the language). Equal to a done job's: the same translation, not a change.
   */
  detected?: { fingerprint: string; baseFingerprint: string } | undefined;
  /** The latest done job of the output path: what the output holds. */
  done: { id: number; sha256: string; fingerprint: string; base_fingerprint: string } | undefined;
  outputExists: boolean;
  /** The open (not done) job recorded for the output path. */
  open:
    | {
        id: number;
        sha256: string;
        fingerprint: string;
        status: string;
        document_id: string | null;
        error_kind?: string | null;
        attempts: number;
      }
    | undefined;
  /**
   * The source's bytes differ from those the done job translated, but its content digest is theirs
   * (saved again without an edit: new container, new metadata). False with change_detection: bytes.
   */
  contentUnchanged: boolean;
  /**
   * Another existing output holding a translation of this content with these settings: this
   * pipeline's, or (reuse: across_pipelines) another pipeline's, an absolute path (`across`).
   */
  donor: { output: string; jobId: number; across?: AcrossDonor } | undefined;
  maxAttempts: number;
  /**
   * Which existing outputs are translated again (--retranslate): stale by their style list (style),
   * by other settings (settings), or every output (all). Empty: none, nothing re-billed.
   */
  retranslate: ReadonlySet<RetranslateScope>;
  /** `sync --retry-failed-qa`: outputs that failed a hard check are bought again (billed). */
  retryFailedQa?: boolean;
  /**
   * A person's wording of the output was imported after the done job delivered it (xliff import):
   * an output up to date is written again, from the memory.
   */
  wordingImported?: boolean;
}

export type Decision =
  | { kind: 'unchanged' }
  | { kind: 'stale'; reason: StaleReason }
  | { kind: 'reuse'; from: string; fromJobId: number; across?: AcrossDonor }
  | { kind: 'resaved'; doneId: number }
  | { kind: 'resume'; jobId: number }
  | { kind: 'gave-up'; jobId: number }
  | { kind: 'needs-fix'; jobId: number }
  | { kind: 'qa-failed'; jobId: number }
  | { kind: 'translate'; reason: TranslateReason; jobId?: number };

/**
 * A paid document whose output could not be written max_attempts times is given up, not fetched
 * forever (any other recorded document is collected).
 */
export function outputGivenUp(
  open: { attempts: number; error_kind?: string | null },
  maxAttempts: number,
): boolean {
  return open.error_kind === 'output' && open.attempts >= maxAttempts;
}

/** What a (file, target) needs. */
export function decide(f: UnitFacts): Decision {
  const { done, open } = f;
  const sameSettings = (fp: string) => fp === f.fingerprint || fp === f.detected?.fingerprint;
  const holdsThis = done !== undefined && done.sha256 === f.sha256 && sameSettings(done.fingerprint);
  if (holdsThis && f.outputExists) {
    if (f.retranslate.has('all')) return { kind: 'translate', reason: 'requested' };
    return f.wordingImported ? { kind: 'translate', reason: 'wording-imported' } : { kind: 'unchanged' };
  }
  // Refused for a reason no retry changes (source equals target...): sent again only once the
  // file or its settings changed, a source_lang set since included (hence no `detected` here).
  if (
    open?.status === 'failed' &&
    open.error_kind === 'needs-fix' &&
    open.sha256 === f.sha256 &&
    open.fingerprint === f.fingerprint
  )
    return { kind: 'needs-fix', jobId: open.id };
  if (open && open.sha256 === f.sha256 && sameSettings(open.fingerprint)) {
    if (open.status === 'uploaded' && open.document_id)
      return outputGivenUp(open, f.maxAttempts)
        ? { kind: 'gave-up', jobId: open.id }
        : { kind: 'resume', jobId: open.id };
    // The service answered this content with a bad output (docs/qa.md): it would likely answer the
    // same again, and bill it; bought again only on request (--retry-failed-qa, or --retranslate
    // all: every output bought again, failed ones included).
    if (
      open.status === 'failed' &&
      open.error_kind === 'qa-failed' &&
      !f.retryFailedQa &&
      !f.retranslate.has('all')
    )
      return { kind: 'qa-failed', jobId: open.id };
    const retried = open.error_kind !== 'qa-failed' && open.error_kind !== 'needs-fix';
    if (open.status === 'failed' && open.attempts >= f.maxAttempts && retried)
      return { kind: 'gave-up', jobId: open.id };
    return {
      kind: 'translate',
      reason: open.error_kind === 'lost-download' ? 'lost-download' : 'retry',
      jobId: open.id,
    };
  }
  // The output holds a translation of this very content, saved again as other bytes: it stays.
  const sameContent = done !== undefined && (done.sha256 === f.sha256 || f.contentUnchanged);
  // Wording imported for it since (an XLIFF import) is still to be written: a catalog written in
  // place is always re-saved after its delivery, and recording the re-save would settle the note.
  if (sameContent && f.outputExists && sameSettings(done.fingerprint) && done.sha256 !== f.sha256)
    return f.retranslate.has('all')
      ? { kind: 'translate', reason: 'requested' }
      : f.wordingImported
        ? { kind: 'translate', reason: 'wording-imported' }
        : { kind: 'resaved', doneId: done.id };
  if (f.donor)
    return {
      kind: 'reuse',
      from: f.donor.output,
      fromJobId: f.donor.jobId,
      ...(f.donor.across ? { across: f.donor.across } : {}),
    };
  // This content translated with other settings: kept, and re-translated (billed) only on request.
  if (sameContent && f.outputExists && !sameSettings(done.fingerprint)) {
    const sameBase =
      done.base_fingerprint === f.baseFingerprint || done.base_fingerprint === f.detected?.baseFingerprint;
    const why: StaleReason = sameBase ? 'style' : 'settings';
    if (f.retranslate.has(why) || f.retranslate.has('all'))
      return { kind: 'translate', reason: why === 'style' ? 'stale' : 'settings-changed' };
    return { kind: 'stale', reason: why };
  }
  if (holdsThis) return { kind: 'translate', reason: 'output-missing' };
  if (!done) return { kind: 'translate', reason: 'new' };
  return { kind: 'translate', reason: done.sha256 === f.sha256 ? 'settings-changed' : 'changed' };
}
