import { formatBill, formatCharacters, type BillingRate } from '../billing/money.js';
import type { RepeatedUpload } from './queries.js';

// The documents that may have been billed twice, as `report` and `status` show them: a retry that
// succeeded does not make the earlier, possibly billed upload disappear from view.

/** Lines of the "billed twice" and "possibly billed twice" sections (empty when there are none). */
export function formatRepeatedUploads(
  rows: readonly RepeatedUpload[],
  rate?: BillingRate,
  limit = 50,
): string[] {
  return [...billedTwice(rows, rate, limit), ...possiblyBilledTwice(rows, rate, limit)];
}

const documents = (n: number) => `${n} document${n === 1 ? '' : 's'}`;
const each = (r: RepeatedUpload) =>
  r.characters === null ? 'characters unknown' : `${formatCharacters(r.characters)} characters each`;

/** Translations lost before their download and bought again: billed twice for sure. */
function billedTwice(
  rows: readonly RepeatedUpload[],
  rate: BillingRate | undefined,
  limit: number,
): string[] {
  const lost = rows.filter((r) => r.lost_downloads > 0 && r.unanswered_requests === undefined);
  if (!lost.length) return [];
  const extra = lost.reduce((n, r) => n + (r.surely_extra_characters ?? 0), 0);
  const lines = [
    `Billed twice (${documents(lost.length)}, ${formatBill(extra, rate)} on top): translations lost before their download, bought again:`,
  ];
  for (const r of lost.slice(0, limit))
    lines.push(
      `  ${r.mapping}/${r.file} -> ${r.target}: ${r.lost_downloads} translation(s) lost before download; ${each(r)} (${r.status})`,
    );
  if (lost.length > limit) lines.push(`  ... and ${lost.length - limit} more (--json lists all)`);
  return lines;
}

/** Uploads repeated after the service may have accepted an earlier one: possibly billed twice. */
function possiblyBilledTwice(
  all: readonly RepeatedUpload[],
  rate: BillingRate | undefined,
  limit: number,
): string[] {
  const rows = all.filter((r) => r.unconfirmed_uploads > 0 || r.unanswered_requests !== undefined);
  if (!rows.length) return [];
  const extra = rows.reduce((n, r) => n + (r.possibly_extra_characters ?? 0), 0);
  const lines = [
    `Possibly billed twice (${documents(rows.length)}, at most ${formatBill(extra, rate)} on top): uploads repeated after the service may have accepted an earlier one:`,
  ];
  for (const r of rows.slice(0, limit)) {
    if (r.unanswered_requests !== undefined) {
      // Method segments: only the requests whose answer was lost were sent more than once.
      lines.push(
        `  ${r.mapping}/${r.file} -> ${r.target}: ${r.unanswered_requests} text request(s) whose answer was lost, their segments sent again; ${formatCharacters(r.possibly_extra_characters ?? 0)} characters possibly billed twice (${r.status})`,
      );
      continue;
    }
    lines.push(
      `  ${r.mapping}/${r.file} -> ${r.target}: ${r.unconfirmed_uploads} upload(s) whose answer was lost; ${each(r)} (${r.status})`,
    );
  }
  if (rows.length > limit) lines.push(`  ... and ${rows.length - limit} more (--json lists all)`);
  lines.push(
    "  Compare with the service's usage page; the account may have been billed once or twice for these.",
  );
  return lines;
}
