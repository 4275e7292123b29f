import { formatBill, formatCharacters, type BillingRate } from '../billing/money.js';
import type { RepeatedUpload } from './queries.js';

// The documents that may have been billed twice, as `report` and `status` show them: a retry that
// succeeded does not make the earlier, possibly billed upload disappear from view.

/** Lines of the "possibly billed twice" section (empty when there are none). */
export function formatRepeatedUploads(
  rows: readonly RepeatedUpload[],
  rate?: BillingRate,
  limit = 50,
): string[] {
  if (!rows.length) return [];
  const extra = rows.reduce((n, r) => n + (r.possibly_extra_characters ?? 0), 0);
  const lines = [
    `Possibly billed twice (${rows.length} document${rows.length === 1 ? '' : 's'}, at most ${formatBill(extra, rate)} on top): uploads repeated after the service may have accepted an earlier one:`,
  ];
  for (const r of rows.slice(0, limit)) {
    if (r.unanswered_requests !== undefined) {
      // Method segments: only the requests whose answer was lost were sent more than once.
      lines.push(
        `  ${r.mapping}/${r.file} -> ${r.target}: ${r.unanswered_requests} text request(s) whose answer was lost, their segments sent again; ${formatCharacters(r.possibly_extra_characters ?? 0)} characters possibly billed twice (${r.status})`,
      );
      continue;
    }
    const why = [
      r.unconfirmed_uploads ? `${r.unconfirmed_uploads} upload(s) whose answer was lost` : '',
      r.lost_downloads ? `${r.lost_downloads} translation(s) lost before download` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const chars =
      r.characters === null ? 'characters unknown' : `${formatCharacters(r.characters)} characters each`;
    lines.push(`  ${r.mapping}/${r.file} -> ${r.target}: ${why}; ${chars} (${r.status})`);
  }
  if (rows.length > limit) lines.push(`  ... and ${rows.length - limit} more (--json lists all)`);
  lines.push(
    "  Compare with the service's usage page; the account may have been billed once or twice for these.",
  );
  return lines;
}
