import type { UploadDocumentRequest } from '../../api/types.js';
import type { StoredDigest } from '../../state/types.js';

// The plan is data: scanning and deciding produce a Plan, `plan` prints it, `plan --json` emits it,
// and `sync` hands it to the executor, which carries out exactly these actions. Every field is plain
// JSON (no Maps, no functions), so a plan can be saved, priced and applied later.

/** One (source file, target) and the output it renders to: the reference every layer shares. */
export interface OutputRef {
  mapping: string;
  /** Source path relative to the mapping's source folder, '/' separators. */
  file: string;
  /** Target language as the manifest spells it. */
  target: string;
  /** Output path relative to the manifest folder, '/' separators. */
  output: string;
}

/** Why a (file, target) is translated (uploaded, billed). */
export type TranslateReason =
  | 'new' // no output was ever made for this path
  | 'changed' // the source content changed since its output was made
  | 'settings-changed' // same content, other settings (language options, output format, glossary)
  | 'stale' // made with an older version of its style list; re-translation asked for (--retranslate stale)
  | 'retry' // a recorded job failed (or was interrupted before its upload answered) on an earlier run
  | 'lost-download' // its translation was paid for but the download was lost (crash mid-download): paid again
  | 'output-missing' // the output was made for this content and settings but is gone from disk
  | 'requested' // up to date, re-translated because it was asked for (--retranslate all)
  | 'wording-imported'; // up to date, written again with a person's wording imported since (xliff import)

/** Why an output is stale: made with an older version of its style list, or with other settings. */
export type StaleReason = 'style' | 'settings';

/** Why a (file, target) gets no work, or a file is left alone. */
export type SkipReason =
  | 'unsupported' // extension the service does not translate
  | 'unreadable' // permission denied, vanished while reading
  | 'source-missing' // the mapping's source folder is not there, or empty where files were (a share away): the run fails
  | 'symlink-loop' // a symlinked folder leading back into the tree
  | 'link-outside' // a symbolic link leading outside the source folder (links_outside_source: skip)
  | 'broken-content' // empty, or its first bytes contradict its extension (pre-flight): never uploaded
  | 'collision' // two sources render to the same output path
  | 'path-escape' // the output would leave its output root or land in a source folder
  | 'unwritable-name' // a part of the output's path is longer than file systems allow
  | 'gave-up' // failed max_attempts times on earlier runs
  | 'needs-fix' // refused for a reason only a change of the manifest or the file can fix
  | 'qa-failed' // its last output failed a hard check (docs/qa.md): not bought again unless asked
  | 'drift'; // its style list was changed on the service (policy fail): not translated until resolved

/** What the executor needs of the source to upload it, and what a price needs. */
export interface SourceFacts {
  /** Source path relative to the manifest folder, '/' separators. */
  path: string;
  sha256: string;
  size: number;
  /** Lower-case extension without the dot ('' when none). */
  ext: string;
}

/** The settings a translation is made with (see src/sync/plan/fingerprint.ts). */
export interface PlannedSettings {
  /** Content-shaping settings including the applied style list's content. */
  fingerprint: string;
  /** The same without the style list's content (equal base, other fingerprint: stale). */
  baseFingerprint: string;
  /** The upload request (no secrets). */
  request: UploadDocumentRequest;
}

export interface TranslateAction {
  kind: 'translate';
  ref: OutputRef;
  reason: TranslateReason;
  source: SourceFacts;
  settings: PlannedSettings;
  /** The recorded job this continues (reason retry): its row is reused, not a new one. */
  jobId?: number;
  /**
   * That job's updated_at as the plan read it. Failed since by another run (another worker took it
   * up first), it is not taken up and bought again here (../run/claims.ts).
   */
  jobUpdatedAt?: string;
  /**
   * The output's latest done job when this was planned (an output gone from disk, a re-translation
   * asked for, a changed source). With several workers, a done job other than this one for the same
   * content and settings was made by another worker meanwhile: nothing to upload.
   */
  doneId?: number;
}

/** Another pipeline's translation copied (reuse: across_pipelines): never written to, only read. */
export interface AcrossDonor {
  /** The other pipeline's name (recorded with the copy, shown in the summary). */
  pipeline: string;
  /** sha256 of its output as written: the copy must hold exactly these bytes. */
  outputSha256: string;
}

/** Copy an identical translation (same content, same settings) instead of uploading: not billed. */
export interface ReuseAction {
  kind: 'reuse';
  ref: OutputRef;
  /** Output (relative to the manifest folder) holding the identical translation, or to hold it. */
  from: string;
  /**
   * 'done': `from` holds it now (its done job is `fromJobId`); 'planned': an earlier action of this
   * plan (translate or resume) makes it, and the copy waits for it.
   */
  donor: 'done' | 'planned';
  fromJobId?: number;
  /** `from` is another pipeline's output (an absolute path; reuse: across_pipelines). */
  across?: AcrossDonor;
  source: SourceFacts;
  settings: PlannedSettings;
}

/**
 * A source saved again without a change of its content (other bytes, the same content digest as
 * what its output was translated from): the output stays, the state records the new bytes against
 * the same translation. Not billed.
 */
export interface ResavedAction {
  kind: 'resaved';
  ref: OutputRef;
  source: SourceFacts;
  settings: PlannedSettings;
  /** The output's done job: the translation the new bytes are recorded against. */
  doneId: number;
}

/** Collect a document an earlier run uploaded (its id and key are recorded): poll and download. */
export interface ResumeAction {
  kind: 'resume';
  ref: OutputRef;
  jobId: number;
  documentId: string;
}

/** An output made with an older version of its style list or glossary, left as it is (not billed). */
export interface StaleAction {
  kind: 'stale';
  ref: OutputRef;
  reason: StaleReason;
  /** What changed, for people: "style list changed", "glossary changed". */
  because?: string;
}

/** A (file, target) that gets no work, with the reason (reported; failed when it is a conflict). */
export interface SkipAction {
  kind: 'skip';
  ref: OutputRef;
  reason: Extract<
    SkipReason,
    'collision' | 'path-escape' | 'unwritable-name' | 'gave-up' | 'needs-fix' | 'qa-failed' | 'drift'
  >;
  message: string;
}

/** An output whose source was deleted (on_source_delete: delete). */
export interface DeleteAction {
  kind: 'delete';
  ref: OutputRef;
  /** The output root it lies in (relative to the manifest folder): nothing outside it is removed. */
  root: string;
  /** The done job whose translation the output holds: deleted only while it still does. */
  jobId: number;
}

/** A source gone since the last run: its record is dropped (after its outputs' deletions, if any). */
export interface ForgetAction {
  kind: 'forget';
  mapping: string;
  file: string;
}

export type PlannedAction =
  | TranslateAction
  | ReuseAction
  | ResavedAction
  | ResumeAction
  | StaleAction
  | SkipAction
  | DeleteAction
  | ForgetAction;

/** A file the scan could not take (unsupported extension, unreadable, symlink loop). */
export interface SkippedFile {
  mapping: string;
  file: string;
  reason: SkipReason;
  message: string;
}

/**
 * What the scan observed and the state should remember once the plan is carried out: contents
 * hashed, files whose every output was found up to date, listings that need no look next time.
 * Recorded by `sync` before it executes; a plan that is only printed records nothing.
 */
export interface Observations {
  hashed: Array<{
    mapping: string;
    file: string;
    size: number;
    mtimeMs: number;
    ino: number;
    ctimeMs: number;
    sha256: string;
  }>;
  /** Content digests made (of new or changed bytes, and of recorded ones that had none). */
  digests?: StoredDigest[];
  verified: Array<{ mapping: string; sig: number; files: string[] }>;
  snapshots: Array<{
    mapping: string;
    files: number;
    digest: string;
    outputDirs: string[];
    outputsDigest: string;
    outputsStamp?: string;
    /** Each source folder's digest (MappingSnapshot.folders), as pairs: a plan is JSON. */
    folders: Array<[string, string]>;
  }>;
}

/** The inputs a plan was made from; a saved plan is applied only while they are unchanged. */
export interface PlanInputs {
  /** Manifest file (absolute path). */
  manifest: string;
  /** Mapping names planned (all when absent). */
  only?: string[];
  /** `--retranslate` as given (stale, style, settings, all; comma-separated). */
  retranslate?: string;
  /** Style list ids and which lists the reconciler would change. */
  styles: { styleIds: Record<string, string>; changedKeys: string[] };
}

export const PLAN_VERSION = 1;

export interface Plan {
  version: typeof PLAN_VERSION;
  inputs: PlanInputs;
  /** In execution order: recorded uploads first, then per mapping in path order, deletions last. */
  actions: PlannedAction[];
  /** Source files found (supported, after include/exclude). */
  files: number;
  /** Files whose content was hashed while planning. */
  hashed: number;
  /** (file, target) units already up to date (not listed one by one). */
  unchanged: number;
  unsupported: SkippedFile[];
  skipped: SkippedFile[];
  observations: Observations;
}

/** The sort key of content de-duplication: identical content with identical settings. */
export function contentKey(sha256: string, fingerprint: string): string {
  return `${sha256}|${fingerprint}`;
}

/** The unit of work a translation is (what is paid for once): its content, target and settings. */
export function unitOf(a: TranslateAction): { sha256: string; target_lang: string; fingerprint: string } {
  return { sha256: a.source.sha256, target_lang: a.ref.target, fingerprint: a.settings.fingerprint };
}
