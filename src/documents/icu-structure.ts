// Whether a translated ICU message kept its source's structure: the same plural/select arms, the
// same arguments ({count}, {count, number}, {name}) and every `#` of an arm, at each level of the
// message. The placeholder comparison (placeholders.ts) sees a message's structure as one set of
// tokens, so an arm added, or a `#` quoted away by an apostrophe in one arm while another keeps
// its own, passes it; an ICU formatter would then print the wrong text (or throw) at run time.
//
// A target language's plural categories may differ from the source's: a Japanese translation may
// leave out `one`, a Polish one add `few` and `many` (each compared with the source's `other`).
// The check is strict otherwise (a `#` of the source's arm must stay, an argument stays at its
// level): the segment path's writer puts the source's structure back as it is, so only an answer
// that put ICU syntax into the text (a brace, an apostrophe that quotes one) can change it.
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { pluralCategories } from './formats/strings/plurals.js';
import { parseIcu } from './placeholders.js';

type Branching = Extract<MessageFormatElement, { type: TYPE.plural | TYPE.select }>;

/** An element of a message as a person reads it in a finding: "{count, plural}", "{name}", "#". */
function labelOf(e: MessageFormatElement): string | undefined {
  switch (e.type) {
    case TYPE.argument:
      return `{${e.value}}`;
    case TYPE.number:
    case TYPE.date:
    case TYPE.time:
      return `{${e.value}, ${TYPE[e.type]}}`;
    case TYPE.select:
      return `{${e.value}, select}`;
    case TYPE.plural:
      return `{${e.value}, ${e.pluralType === 'ordinal' ? 'selectordinal' : 'plural'}}`;
    case TYPE.pound:
      return '#';
    default:
      return undefined; // literal text (tags are read as text: ignoreTag)
  }
}

/** The elements of one level of a message (not inside its arms), by label. */
function levelOf(elements: readonly MessageFormatElement[]): Map<string, MessageFormatElement> {
  const level = new Map<string, MessageFormatElement>();
  for (const e of elements) {
    const label = labelOf(e);
    if (label !== undefined && !level.has(label)) level.set(label, e);
  }
  return level;
}

/** What a parse error says, for a person: "expect argument closing brace at character 42". */
function parseProblem(err: unknown): string {
  const e = err as { message?: string; location?: { start?: { offset?: number } } };
  const what = (e.message ?? String(err)).toLowerCase().replace(/_/g, ' ');
  const at = e.location?.start?.offset;
  return `the ICU message no longer parses (${what}${at === undefined ? '' : ` at character ${at + 1}`})`;
}

/**
 * What a translation changed of its source ICU message's structure, for a writer that must refuse
 * it (undefined: nothing, or the source is no ICU message with a plural, select or formatted
 * argument). `targetLang` ('' unknown) decides which plural arms the translation may add or leave out.
 */
export function icuStructureProblem(
  source: string,
  translation: string,
  targetLang = '',
): string | undefined {
  const src = parseIcu(source);
  if (!src) return undefined;
  let out: MessageFormatElement[];
  try {
    out = parse(translation, { ignoreTag: true });
  } catch (err) {
    return parseProblem(err);
  }
  return levelProblem(src, out, '', targetLang);
}

function levelProblem(
  src: readonly MessageFormatElement[],
  out: readonly MessageFormatElement[],
  where: string,
  lang: string,
): string | undefined {
  const want = levelOf(src);
  const have = levelOf(out);
  for (const label of want.keys()) if (!have.has(label)) return `${label} missing${where}`;
  // An arm that says its number where the source's does not (`one {# Datei}`) adds nothing wrong.
  for (const label of have.keys())
    if (!want.has(label) && label !== '#') return `${label} the source does not have${where}`;
  for (const [label, e] of want) {
    if (e.type !== TYPE.plural && e.type !== TYPE.select) continue;
    const problem = armsProblem(e, have.get(label) as Branching, label, lang);
    if (problem) return problem;
  }
  return undefined;
}

/** The arms of a plural/select compared with the source's, then each arm's own structure. */
function armsProblem(src: Branching, out: Branching, label: string, lang: string): string | undefined {
  const want = Object.keys(src.options);
  const have = Object.keys(out.options);
  // The plural categories of the target (all the source's when the target is unknown).
  const categories =
    src.type === TYPE.plural && lang !== ''
      ? pluralCategories(lang, src.pluralType === 'ordinal' ? 'ordinal' : 'cardinal')
      : undefined;
  const required = (arm: string) =>
    arm === 'other' || !categories || arm.startsWith('=') || categories.includes(arm);
  const allowed = (arm: string) => want.includes(arm) || (categories?.includes(arm) ?? false);
  const missing = want.find((arm) => required(arm) && !have.includes(arm));
  if (missing !== undefined) return `arm "${missing}" of ${label} missing`;
  const extra = have.find((arm) => !allowed(arm));
  if (extra !== undefined) return `arm "${extra}" of ${label} the source does not have`;
  for (const arm of have) {
    // An arm the target's language adds (Polish `few`) says what the source's `other` says.
    const like = src.options[arm] ?? src.options.other;
    const translated = out.options[arm];
    if (!like || !translated) continue;
    const problem = levelProblem(like.value, translated.value, ` in the "${arm}" arm of ${label}`, lang);
    if (problem) return problem;
  }
  return undefined;
}
