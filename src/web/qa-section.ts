import { describeFinding } from '../qa/checks.js';
import type { QaOutputs, QaOutputView } from '../report/qa-outputs.js';
import { escapeHtml, isolated } from './html.js';

// The part of the status page and of the HTML report that lists the outputs the output checks
// failed (not delivered) or flagged (delivered), each finding with where it is: the same list as
// `locsync status` (../report/qa-outputs.ts, docs/qa.md).

function rows(views: readonly QaOutputView[], outcome: 'failed' | 'flagged'): string[] {
  return views.map(
    (v) =>
      `<tr class="qa-${outcome}"><td>${isolated(v.output)}</td><td>${
        outcome === 'failed' ? '<span class="bad">failed</span>' : '<span class="warn">flagged</span>'
      }</td><td>${v.findings.map((f) => `<div>${escapeHtml(describeFinding(f))}</div>`).join('')}</td></tr>`,
  );
}

/** The heading and table (or a line saying there is nothing); `qa` undefined: not known. */
export function qaSection(qa: QaOutputs | undefined): string {
  const failed = qa?.failed ?? [];
  const flagged = qa?.flagged ?? [];
  const heading = `<h2>Output checks${failed.length || flagged.length ? ` (${failed.length ? `<span class="bad">${failed.length} failed</span>` : ''}${failed.length && flagged.length ? ', ' : ''}${flagged.length ? `${flagged.length} flagged` : ''})` : ''}</h2>`;
  if (!failed.length && !flagged.length)
    return `${heading}<p class="muted" id="qa">No output failed or flagged by the output checks.</p>`;
  return `${heading}<p class="muted">Failed outputs were not delivered (kept in the quarantine; <code>sync --retry-failed-qa</code> translates them again, billed); flagged ones were delivered: have a person look at the places named (docs/qa.md).</p>
<table id="qa"><thead><tr><th>output</th><th>verdict</th><th>findings (where)</th></tr></thead><tbody>${[...rows(failed, 'failed'), ...rows(flagged, 'flagged')].join('')}</tbody></table>`;
}
