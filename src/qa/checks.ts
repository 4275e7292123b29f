// The names of the output checks (docs/qa.md): what the state's results and every message call
// them. The soft checks a manifest's `qa:` can name, and those that fail an output by default, are
// the manifest's (src/manifest/sections/qa.ts): the checks sit above the settings they read.
import { DEFAULT_FAIL_ON, SOFT_CHECKS, type SoftCheck } from '../manifest/sections/qa.js';

export { DEFAULT_FAIL_ON, SOFT_CHECKS, type SoftCheck };

/** Hard checks: an output that fails one is never delivered (./hard-checks.ts). */
export const HARD_CHECKS = ['empty', 'unreadable', 'lost-segments', 'untranslated'] as const;
export type HardCheck = (typeof HARD_CHECKS)[number];

export type QaCheck = HardCheck | SoftCheck;

/** A mapping's `qa:` settings, defaults applied. */
export interface QaSettings {
  /** Soft checks that fail an output (not delivered, like a hard check). */
  failOn: readonly SoftCheck[];
  /** Soft checks not run. */
  ignore: readonly SoftCheck[];
}

export const DEFAULT_QA_SETTINGS: QaSettings = { failOn: DEFAULT_FAIL_ON, ignore: [] };

/** pass: nothing found; flagged: delivered with findings; failed: not delivered. */
export type QaOutcome = 'pass' | 'flagged' | 'failed';

/** What one check found in an output. */
export interface QaFinding {
  check: QaCheck;
  /** For a person: what is wrong ("2 segments left untranslated"). */
  message: string;
  /** Where in the document (the segments' places: "line 3", "page 2", "slide 4"), the first few. */
  where: string[];
}

/** The checks' verdict on one output. */
export interface QaResult {
  outcome: QaOutcome;
  findings: QaFinding[];
}

/** How many places a finding names at most (the rest are counted). */
export const MAX_WHERE = 10;

/** A finding as one line: "placeholders: {name} missing (at line 3, line 7)". */
export function describeFinding(f: QaFinding): string {
  return f.where.length > 0
    ? `${f.check}: ${f.message} (at ${f.where.join(', ')})`
    : `${f.check}: ${f.message}`;
}

/** The places of a finding: the first MAX_WHERE, and how many more. */
export function placesOf(wheres: readonly string[]): string[] {
  const unique = [...new Set(wheres)];
  if (unique.length <= MAX_WHERE) return unique;
  return [...unique.slice(0, MAX_WHERE), `${unique.length - MAX_WHERE} more`];
}
