import type { QaFinding, SoftCheck } from './checks.js';
import { placesOf } from './checks.js';
import { languageMismatch, letterCount, MIN_LETTERS_TO_DETECT } from './language.js';
import { lengthOutlier } from './length-ratio.js';
import type { ReadSegment } from './read.js';
import { addTokens, emptyTokens, missingTokens, TOKEN_KINDS, tokensOf, type Tokens } from './tokens.js';

// The soft checks of a delivered document (docs/qa.md): what a reviewer would mark in a translation
// that opens and is complete. They compare the output's segments with the source's without pairing
// them one to one (a translation may merge or split segments): a token of the source is missing when
// the output has it fewer times; its place is where the source has it.

export interface SoftCheckContext {
  /** Lower-case source language; undefined: detected by the service (taken as unknown). */
  sourceLang?: string | undefined;
  /** Lower-case target language ("de", "pt-br"). */
  targetLang: string;
  /** The glossary's entries for this language pair: source term -> target term. */
  glossary?: ReadonlyMap<string, string> | undefined;
  /** Checks not to run (the mapping's qa.ignore). */
  skip?: ReadonlySet<SoftCheck>;
}

/** Segments whose own language is detected at most (spread over the document). */
const MAX_SEGMENTS_DETECTED = 200;

/** A segment "left untranslated" has at least this many words (a name, "OK" or "API" may stay). */
const MIN_WORDS_UNTRANSLATED = 3;
const WORD = /\p{L}{2,}/gu;

function untranslatedSegments(src: readonly ReadSegment[], out: readonly ReadSegment[]): QaFinding[] {
  const sourceTexts = new Set(
    src.map((s) => s.text.trim()).filter((t) => (t.match(WORD)?.length ?? 0) >= MIN_WORDS_UNTRANSLATED),
  );
  const left = out.filter((o) => sourceTexts.has(o.text.trim()));
  if (left.length === 0) return [];
  return [
    {
      check: 'untranslated',
      message: `${left.length} of ${out.length} segments left untranslated (the source text unchanged)`,
      where: placesOf(left.map((o) => o.where)),
    },
  ];
}

async function wrongLanguage(out: readonly ReadSegment[], ctx: SoftCheckContext): Promise<QaFinding[]> {
  const whole = out.map((o) => o.text).join('\n');
  const document = await languageMismatch(whole, ctx.targetLang, ctx.sourceLang);
  const segments: Array<{ where: string; detected: string }> = [];
  const long = out.filter((o) => letterCount(o.text) >= MIN_LETTERS_TO_DETECT);
  // A huge document: every k-th long segment, so that a 100,000-paragraph file costs what 200 do.
  const step = Math.max(1, Math.ceil(long.length / MAX_SEGMENTS_DETECTED));
  for (let i = 0; i < long.length; i += step) {
    const o = long[i] as ReadSegment;
    const m = await languageMismatch(o.text, ctx.targetLang, ctx.sourceLang);
    if (m) segments.push({ where: o.where, detected: m.detected });
  }
  if (!document && segments.length === 0) return [];
  const detected = document?.detected ?? segments[0]?.detected;
  const scope = document ? 'the document reads' : `${segments.length} segments read`;
  return [
    {
      check: 'language',
      message: `${ctx.targetLang} not detected: ${scope} as ${detected}`,
      where: placesOf(segments.length > 0 ? segments.map((s) => s.where) : ['the whole document']),
    },
  ];
}

const TOKEN_NAMES: Record<(typeof TOKEN_KINDS)[number], string> = {
  urls: 'URL',
  emails: 'e-mail address',
  placeholders: 'placeholder',
  code: 'inline code',
  numbers: 'number',
};

function missingFromSource(
  src: readonly ReadSegment[],
  out: readonly ReadSegment[],
  skip: ReadonlySet<SoftCheck>,
): QaFinding[] {
  const perSegment = src.map((s) => tokensOf(s.text, s.code));
  const inSource = emptyTokens();
  for (const t of perSegment) addTokens(inSource, t);
  const inOutput: Tokens = emptyTokens();
  for (const o of out) addTokens(inOutput, tokensOf(o.text, o.code));
  const findings: QaFinding[] = [];
  for (const kind of TOKEN_KINDS) {
    if (skip.has(kind)) continue;
    const missing = missingTokens(inSource[kind], inOutput[kind]);
    if (missing.length === 0) continue;
    const shown = missing.slice(0, 5).map((m) => `"${m}"`);
    const name = TOKEN_NAMES[kind];
    findings.push({
      check: kind,
      message: `${missing.length === 1 ? `the ${name}` : `${missing.length} ${name}s of the source`} ${shown.join(', ')}${missing.length > 5 ? ' ...' : ''} missing from the output`,
      where: placesOf(
        src.filter((_, i) => missing.some((m) => perSegment[i]?.[kind].includes(m))).map((s) => s.where),
      ),
    });
  }
  return findings;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A term as a whole word (or words), any case: "API" is not found in "rapid". */
function termPattern(term: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(term)}(?![\\p{L}\\p{N}])`, 'iu');
}

function glossaryTerms(
  src: readonly ReadSegment[],
  out: readonly ReadSegment[],
  glossary: ReadonlyMap<string, string>,
): QaFinding[] {
  const missed: string[] = [];
  const wheres: string[] = [];
  for (const [term, translation] of glossary) {
    const pattern = termPattern(term);
    const using = src.filter((s) => pattern.test(s.text));
    if (using.length === 0) continue;
    const target = termPattern(translation);
    const found = out.filter((o) => target.test(o.text)).length;
    if (found >= using.length) continue;
    missed.push(`"${term}" → "${translation}" (${found} of ${using.length})`);
    wheres.push(...using.map((s) => s.where));
  }
  if (missed.length === 0) return [];
  return [
    {
      check: 'glossary',
      message: `glossary terms not applied: ${missed.slice(0, 5).join(', ')}${missed.length > 5 ? ` and ${missed.length - 5} more` : ''}`,
      where: placesOf(wheres),
    },
  ];
}

function characters(segments: readonly ReadSegment[]): number {
  let n = 0;
  for (const s of segments) for (const _ of s.text.trim()) n++;
  return n;
}

function lengthRatio(
  src: readonly ReadSegment[],
  out: readonly ReadSegment[],
  ctx: SoftCheckContext,
): QaFinding[] {
  const far = lengthOutlier(characters(src), characters(out), ctx.sourceLang, ctx.targetLang);
  if (!far) return [];
  return [
    {
      check: 'length',
      message: `the output is ${far.ratio.toFixed(2)} times as long as the source; ${ctx.targetLang} is usually about ${far.expected.toFixed(2)} times`,
      where: ['the whole document'],
    },
  ];
}

/**
 * Runs the soft checks on an output's segments `out` against its source's `src` (undefined: the
 * source is unknown or unreadable, then only the language check runs). Findings in check order.
 */
export async function runSoftChecks(
  src: readonly ReadSegment[] | undefined,
  out: readonly ReadSegment[],
  ctx: SoftCheckContext,
): Promise<QaFinding[]> {
  const skip = ctx.skip ?? new Set<SoftCheck>();
  const findings: QaFinding[] = [];
  const sameLanguage =
    ctx.sourceLang !== undefined &&
    ctx.sourceLang.split('-')[0] === ctx.targetLang.toLowerCase().split('-')[0];
  if (src && !skip.has('untranslated') && !sameLanguage) findings.push(...untranslatedSegments(src, out));
  if (!skip.has('language')) findings.push(...(await wrongLanguage(out, ctx)));
  if (src) findings.push(...missingFromSource(src, out, skip));
  if (src && ctx.glossary && !skip.has('glossary')) findings.push(...glossaryTerms(src, out, ctx.glossary));
  if (src && !skip.has('length')) findings.push(...lengthRatio(src, out, ctx));
  return findings;
}
