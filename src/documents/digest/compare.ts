import type { PartDigest } from './types.js';

// What changed between two contents, part by part and unit by unit, in words (`plan --why`):
// "word/document.xml: paragraph 12 text", "markdown: line 14 (paragraph 6): text changed",
// "ppt/slides/slide9.xml: added".

/** Lines about one part's units at most; the rest is counted. */
const MAX_UNIT_LINES = 10;

/** A part's name for people ("page 00003" is kept zero-padded only so that pages sort). */
const shown = (name: string): string => name.replace(/^page 0*(\d)/, 'page $1');

/** "label\ttext full[\tline]" → its pieces (the line only in summaries of text files). */
function unitOf(u: string): { label: string; text: string; full: string; line?: string } {
  const [label = '', hashes = '', line] = u.split('\t');
  const [text = '', full = ''] = hashes.split(' ');
  return { label, text, full, ...(line ? { line } : {}) };
}

function unitChanges(part: string, before: string[], after: string[]): string[] {
  const lines: string[] = [];
  let more = 0;
  const n = Math.min(before.length, after.length);
  for (let i = 0; i < n; i++) {
    const a = unitOf(before[i] as string);
    const b = unitOf(after[i] as string);
    if (a.full === b.full && a.label === b.label) continue;
    if (lines.length >= MAX_UNIT_LINES) {
      more++;
      continue;
    }
    const what = a.text === b.text ? 'formatting' : 'text';
    // Where the file has lines, the line of the unit now: what an editor jumps to.
    lines.push(
      b.line ? `${part}: line ${b.line} (${b.label}): ${what} changed` : `${part}: ${b.label} ${what}`,
    );
  }
  if (more) lines.push(`${part}: and ${more} more changed`);
  if (after.length > before.length) lines.push(`${part}: ${after.length - before.length} more (added)`);
  if (after.length < before.length) lines.push(`${part}: ${before.length - after.length} fewer (removed)`);
  return lines;
}

/** The differences between the parts of two contents, one line each, in part-name order. */
export function describeChanges(before: readonly PartDigest[], after: readonly PartDigest[]): string[] {
  const old = new Map(before.map((p) => [p.name, p]));
  const lines: string[] = [];
  for (const p of after) {
    const q = old.get(p.name);
    old.delete(p.name);
    if (!q) lines.push(`${shown(p.name)}: added`);
    else if (q.hash !== p.hash) {
      const units = unitChanges(shown(p.name), q.units ?? [], p.units ?? []);
      lines.push(...(units.length ? units : [`${shown(p.name)}: changed`]));
    }
  }
  for (const name of old.keys()) lines.push(`${shown(name)}: removed`);
  return lines;
}
