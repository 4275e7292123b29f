import type { QaFinding } from '../qa/checks.js';
import { describeFinding } from '../qa/checks.js';
import type { QaResultRow, QaResultStore } from '../state/types.js';

// The outputs the output checks failed or flagged (docs/qa.md), as status, status --json, the
// status page and the HTML report show them: read from the state's last verdict per output.

export interface QaOutputView {
  output: string;
  mapping: string;
  file: string;
  target: string;
  outcome: 'flagged' | 'failed';
  findings: QaFinding[];
  checked_at: string;
}

export interface QaOutputs {
  failed: QaOutputView[];
  flagged: QaOutputView[];
}

function viewOf(row: QaResultRow): QaOutputView {
  let findings: QaFinding[] = [];
  try {
    findings = JSON.parse(row.findings) as QaFinding[];
  } catch {
    /* a damaged row still names its output */
  }
  return {
    output: row.output_path,
    mapping: row.mapping,
    file: row.rel_path,
    target: row.target_lang,
    outcome: row.outcome as 'flagged' | 'failed',
    findings,
    checked_at: row.checked_at,
  };
}

/**
 * The failed and flagged outputs recorded in `store` (none: a state without the table, such as a
 * PostgreSQL state read before its migration).
 */
export async function qaOutputs(store: QaResultStore | undefined): Promise<QaOutputs> {
  const rows = store ? await store.list(['failed', 'flagged']).catch(() => []) : [];
  const views = rows.map(viewOf);
  return {
    failed: views.filter((v) => v.outcome === 'failed'),
    flagged: views.filter((v) => v.outcome === 'flagged'),
  };
}

/** Outputs listed in the text of `status` at most per list (--json lists all). */
const MAX_LISTED = 50;

/** The lines of `status` (none when every checked output passed). */
export function formatQaOutputs(qa: QaOutputs | undefined, cfg: string): string[] {
  if (!qa || (qa.failed.length === 0 && qa.flagged.length === 0)) return [];
  const out: string[] = [];
  const list = (views: QaOutputView[]) => {
    for (const v of views.slice(0, MAX_LISTED)) {
      out.push(`  ${v.output} (${v.mapping}/${v.file} -> ${v.target})`);
      for (const f of v.findings) out.push(`    ${describeFinding(f)}`);
    }
    if (views.length > MAX_LISTED) out.push(`  ... and ${views.length - MAX_LISTED} more (--json lists all)`);
  };
  if (qa.failed.length) {
    out.push(
      `Failed the output checks (${qa.failed.length}; not delivered, kept in the quarantine; \`locsync sync -c ${cfg} --retry-failed-qa\` translates them again, billed):`,
    );
    list(qa.failed);
  }
  if (qa.flagged.length) {
    if (out.length) out.push('');
    out.push(
      `Flagged by the output checks (${qa.flagged.length}; delivered: have a person look at the places named; docs/qa.md):`,
    );
    list(qa.flagged);
  }
  return out;
}
