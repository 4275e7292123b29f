import { extensionOf } from '../documents/format-registry.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { JobRecord, QaResultStore } from '../state/types.js';
import type { CheckedOutput } from './check-output.js';
import type { QaFinding, QaResult } from './checks.js';
import { MIN_LETTERS_TO_DETECT } from './language.js';
import { quarantineFile } from './quarantine.js';
import { outputContextOf, qaSettingsOf } from './settings.js';
import { outputFile } from '../manifest/in-place-output.js';

// The gate between a download and its output folder (docs/qa.md): the downloaded file is checked
// before it is renamed into place; one that fails (a hard check, or a soft one the mapping's
// qa.fail_on names) goes to the quarantine instead. The verdict is recorded per output.

/**
 * Source bytes below which no output is expected to hold the letters the language check reads
 * (MIN_LETTERS_TO_DETECT; a translation more than twice as long as its source is rare).
 */
export const TOO_SHORT_TO_CHECK = MIN_LETTERS_TO_DETECT / 2;

/** A downloaded output failed a check: it is in `quarantined`, not in the output folder. */
export class QaFailedError extends Error {
  constructor(
    readonly failure: { check: string; reason: string },
    readonly quarantined: string,
    readonly result: QaResult,
  ) {
    super(`output check failed (${failure.check}): ${failure.reason}; kept in ${quarantined}`);
    this.name = 'QaFailedError';
  }
}

/** The job's side of the checks: its output, source, mapping and target. */
export type CheckedJob = Pick<JobRecord, 'id' | 'mapping' | 'rel_path' | 'target_lang' | 'output_path'>;

/**
 * The output checks of one run: `vet` checks a download before it is put in place, `record` keeps
 * the verdict in the state (the executor calls both; ../sync/run/output-delivery.ts).
 */
export class OutputGate {
  constructor(
    private readonly loaded: Pick<LoadedManifest, 'manifest' | 'glossaries'>,
    private readonly quarantineDir: string,
    private readonly results: QaResultStore | undefined,
  ) {}

  /**
   * Outputs of these mappings, translated from sources of these sizes, are on their way: the
   * language check's model starts loading now, in its worker thread (./language-detector.ts),
   * unless every one of them ignores that check or comes from a source too short to give an output
   * the check reads (TOO_SHORT_TO_CHECK: a run after one short file changed does not load 80 MB and
   * 0.3 s of CPU beside its upload for nothing; an output that turns out long loads it then).
   */
  expect(outputs: Iterable<{ mapping: string; sourceBytes: number }>): void {
    for (const { mapping: name, sourceBytes } of outputs) {
      if (sourceBytes < TOO_SHORT_TO_CHECK) continue;
      const mapping = this.loaded.manifest.mappings.find((m) => m.name === name);
      if (qaSettingsOf(mapping).ignore.includes('language')) continue;
      void import('./language-detector.js').then((m) => m.prepareLanguageCheck());
      return;
    }
  }

  /**
   * Checks the file at `candidate` (a part file or a spooled download) as the output of `job` made
   * from `sourceAbs` (undefined: unknown); throws QaFailedError, after moving it to the quarantine
   * and recording the verdict, when it fails.
   */
  async vet(job: CheckedJob, sourceAbs: string | undefined, candidate: string): Promise<QaResult> {
    const ctx = outputContextOf(this.loaded, job.mapping, job.target_lang);
    // The checks (their parsers and the language model) are loaded with the first download: a run
    // that downloads nothing, a no-op, never pays for them.
    const { checkOutput } = await import('./check-output.js');
    // Read as the mapping says (a CSV file's columns), the source and its output alike.
    const read = ctx.readOf(extensionOf(job.rel_path));
    const checked: CheckedOutput = await checkOutput({
      source: sourceAbs !== undefined ? { path: sourceAbs, format: extensionOf(sourceAbs), read } : undefined,
      output: { path: candidate, format: extensionOf(outputFile(job.output_path)), read },
      targetLang: job.target_lang.toLowerCase(),
      sourceLang: ctx.sourceLang,
      glossary: ctx.glossary,
      settings: ctx.settings,
    });
    const result: QaResult = { outcome: checked.outcome, findings: checked.findings };
    if (!checked.failure) return result;
    const quarantined = await quarantineFile(candidate, this.quarantineDir, job.output_path);
    await this.record(job, result);
    throw new QaFailedError(checked.failure, quarantined, result);
  }

  /**
   * A written output its writer refuses (the segment path: a translation that broke its segments'
   * placeholders or inline tags, ../documents/tagged.ts): failed like an output that fails a check,
   * whatever the mapping's qa settings, since it cannot be written as its translation says.
   */
  async refuse(job: CheckedJob, candidate: string, finding: QaFinding): Promise<never> {
    const result: QaResult = { outcome: 'failed', findings: [finding] };
    const quarantined = await quarantineFile(candidate, this.quarantineDir, job.output_path);
    await this.record(job, result);
    const reason =
      finding.where.length > 0 ? `${finding.message} (at ${finding.where.join(', ')})` : finding.message;
    throw new QaFailedError({ check: finding.check, reason }, quarantined, result);
  }

  /** Keeps the verdict on `job`'s output in the state (replacing the one before). */
  async record(job: CheckedJob, result: QaResult): Promise<void> {
    await this.results?.record({
      output_path: job.output_path,
      job_id: job.id,
      mapping: job.mapping,
      rel_path: job.rel_path,
      target_lang: job.target_lang,
      outcome: result.outcome,
      findings: JSON.stringify(result.findings),
      checked_at: new Date().toISOString(),
    });
  }
}
