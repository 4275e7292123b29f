import type { QaFinding, QaResult, QaSettings } from './checks.js';
import { compareWithSource, readOutput, readSource, type DocumentRef } from './hard-checks.js';
import { runSoftChecks } from './soft-checks.js';

// Every check of one output (docs/qa.md): the hard ones first (an output that fails one is not
// read further), then the soft ones the settings leave on; the verdict follows the settings.

export interface OutputToCheck {
  /** The source it translates; undefined: unknown (only the output's own checks run). */
  source: DocumentRef | undefined;
  output: DocumentRef;
  /** Lower-case target language. */
  targetLang: string;
  /** Lower-case source language; undefined: detected by the service. */
  sourceLang?: string | undefined;
  /** The glossary's entries for the pair (source term -> target term). */
  glossary?: ReadonlyMap<string, string> | undefined;
  settings: QaSettings;
}

/** The verdict, and (failed) the check that failed it with its reason, for the job's error. */
export interface CheckedOutput extends QaResult {
  failure?: { check: string; reason: string };
}

export async function checkOutput(c: OutputToCheck): Promise<CheckedOutput> {
  const out = await readOutput(c.output, c.targetLang);
  const hard = (failure: { check: QaFinding['check']; reason: string }): CheckedOutput => ({
    outcome: 'failed',
    findings: [{ check: failure.check, message: failure.reason, where: [] }],
    failure,
  });
  if ('failure' in out) return hard(out.failure);
  const src = c.source ? await readSource(c.source, c.output, c.targetLang) : undefined;
  const broken = c.source && src ? await compareWithSource(c.source, src, out) : undefined;
  if (broken) return hard(broken);
  const findings = await runSoftChecks(src?.segments, out.segments, {
    sourceLang: c.sourceLang,
    targetLang: c.targetLang,
    glossary: c.glossary,
    skip: new Set(c.settings.ignore),
  });
  const failing = findings.filter((f) => (c.settings.failOn as readonly string[]).includes(f.check));
  if (failing.length > 0) {
    const reason = failing
      .map((f) => (f.where.length > 0 ? `${f.message} (at ${f.where.join(', ')})` : f.message))
      .join('; ');
    return {
      outcome: 'failed',
      findings,
      failure: { check: [...new Set(failing.map((f) => f.check))].join(', '), reason },
    };
  }
  return { outcome: findings.length > 0 ? 'flagged' : 'pass', findings };
}
