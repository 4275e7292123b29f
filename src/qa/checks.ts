// The names of the output checks (docs/qa.md): what the manifest's `qa:` settings, the state's
// results and every message call them. No imports: the manifest schema takes its names from here.

/** Hard checks: an output that fails one is never delivered (./hard-checks.ts). */
export const HARD_CHECKS = ['empty', 'unreadable', 'lost-segments', 'untranslated'] as const;
export type HardCheck = (typeof HARD_CHECKS)[number];

/**
 * Soft checks: an output that fails one is delivered and flagged, unless the mapping's
 * `qa.fail_on` names the check (then it is failed like a hard one) or `qa.ignore` does (not run).
 * `untranslated` here is some segments left as the source (all of them is the hard check).
 */
export const SOFT_CHECKS = [
  'untranslated',
  'language',
  'placeholders',
  'urls',
  'emails',
  'code',
  'numbers',
  'glossary',
  'length',
] as const;
export type SoftCheck = (typeof SOFT_CHECKS)[number];

export type QaCheck = HardCheck | SoftCheck;

/** A mapping's `qa:` settings, defaults applied. */
export interface QaSettings {
  /** Soft checks that fail an output (not delivered, like a hard check). */
  failOn: readonly SoftCheck[];
  /** Soft checks not run. */
  ignore: readonly SoftCheck[];
}

/**
 * What a careful team gets without writing `qa:`: a document in the wrong language and a string
 * whose placeholders were lost are not delivered (the first is no translation for its readers, the
 * second breaks the program that fills it in); everything else is delivered and flagged.
 */
export const DEFAULT_FAIL_ON: readonly SoftCheck[] = ['language', 'placeholders'];

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
