// Custom instructions the engine understands (case-insensitive; any other prompt is accepted and
// ignored, as a real model would follow it invisibly):
//   Do not translate "X"            (also: Don't / Never translate; several quoted terms allowed)
//   Always translate "X" as "Y"     (also: Translate "X" as/into/to "Y")
// Quotes may be straight or typographic ("…", “…”, „…“, «…», '…', ‘…’).
import type { CustomInstruction } from '../../api/types.js';
import type { ProtectRule } from './mask.js';

const QUOTED = String.raw`(?:"([^"]+)"|\u201C([^\u201D]+)\u201D|\u201E([^\u201C\u201D]+)[\u201C\u201D]|\u00AB\s?([^\u00BB]+?)\s?\u00BB|'([^']+)'|\u2018([^\u2019]+)\u2019)`;
const DO_NOT = new RegExp(
  String.raw`\b(?:do\s+not|don[\u2019']t|never)\s+translate\b((?:\s*(?:,|and|or)?\s*${QUOTED})+)`,
  'giu',
);
const ALWAYS = new RegExp(
  String.raw`\b(?:always\s+)?translate\s+${QUOTED}\s+(?:as|into|to|with|by)\s+${QUOTED}`,
  'giu',
);

function firstGroup(groups: Array<string | undefined>): string | undefined {
  return groups.find((g) => g !== undefined)?.trim() || undefined;
}

export interface TermRules {
  keep: string[];
  replace: Array<{ from: string; to: string }>;
}

/** Terms to keep and to replace, from the instructions that apply to `sourceLang`. */
export function parseInstructions(instructions: readonly CustomInstruction[], sourceLang: string): TermRules {
  const out: TermRules = { keep: [], replace: [] };
  for (const ins of instructions) {
    if (ins.source_language && ins.source_language.toLowerCase() !== sourceLang.toLowerCase()) continue;
    let rest = ins.prompt;
    for (const m of ins.prompt.matchAll(DO_NOT)) {
      for (const q of (m[1] as string).matchAll(new RegExp(QUOTED, 'gu'))) {
        const term = firstGroup(q.slice(1));
        if (term) out.keep.push(term);
      }
      rest = rest.replace(m[0], ' ');
    }
    for (const m of rest.matchAll(ALWAYS)) {
      const from = firstGroup(m.slice(1, 7));
      const to = firstGroup(m.slice(7, 13));
      if (from && to !== undefined) out.replace.push({ from, to });
    }
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A whole-word, case-insensitive pattern for a term. */
function termPattern(term: string): RegExp {
  const before = /^[\p{L}\p{N}_]/u.test(term) ? '(?<![\\p{L}\\p{N}_])' : '';
  const after = /[\p{L}\p{N}_]$/u.test(term) ? '(?![\\p{L}\\p{N}_])' : '';
  return new RegExp(before + escapeRegExp(term) + after, 'giu');
}

/** Keeps the capitalisation of the source occurrence: "File" -> "Fichier", "FILE" -> "FICHIER". */
function matchCase(source: string, target: string): string {
  if (source.length > 1 && source === source.toUpperCase() && source !== source.toLowerCase()) {
    return target.toUpperCase();
  }
  const first = source[0] ?? '';
  if (first !== first.toLowerCase() && target[0] === target[0]?.toLowerCase()) {
    return (target[0]?.toUpperCase() ?? '') + target.slice(1);
  }
  return target;
}

/** Protect rules for the masking step: kept terms stay as they are, replaced ones become the target. */
export function termProtectRules(terms: TermRules): ProtectRule[] {
  // Longer terms first, so that "locsync CLI" wins over "locsync".
  const rules: Array<{ len: number; rule: ProtectRule }> = [
    ...terms.keep.map((t) => ({ len: t.length, rule: { pattern: termPattern(t) } })),
    ...terms.replace.map(({ from, to }) => ({
      len: from.length,
      rule: { pattern: termPattern(from), replace: (m: string) => matchCase(m, to) },
    })),
  ];
  return rules.sort((a, b) => b.len - a.len).map((r) => r.rule);
}
