// A person's wording of a string value, as the segment memory keeps it: tagged in the pieces of its
// source segment. The writer gives an ICU message the plural branches of the target language
// (plurals.ts: Polish `few`, `many` copied from English `other`), so a value read from an output has
// more pieces than its source; read as it is, a value nobody edited would differ from its
// translation (a false correction, and a false conflict once its source changes), and an edited one
// would be written back with its branches run together. The writer also puts each placeholder where
// the source has it: a wording whose placeholders moved has no place in those pieces either.
import type { Piece } from '../../segment.js';
import { protectPlaceholders } from '../../placeholders.js';
import { fromTaggedText, taggedText } from '../../tagged.js';
import { icuPluralsBack, icuPluralsFor } from './plurals.js';

export interface OutputValue {
  /** The value's segment in the output, tagged in its own pieces. */
  tagged: string;
  /** The value as the output has it. */
  value: string;
}

/**
 * The tagged wording of `edited` in the shape of its source segment (`source`: its pieces), given the
 * memory's translation `current` it was written from (undefined: not known). `current` itself when
 * the output has what was written from it; undefined when the wording has no place in the source's
 * pieces (a person changed a branch the target language added, or moved a placeholder): the edit
 * cannot be kept per segment.
 */
export function wordingInSourceShape(
  edited: OutputValue,
  source: readonly Piece[],
  current: string | undefined,
  lang: string,
): string | undefined {
  if (edited.tagged === current) return current;
  let value = edited.value;
  if (/\bplural\b/.test(value)) {
    const like = source.map((p) => p.text).join('');
    const written =
      current === undefined
        ? undefined
        : icuPluralsFor(fromTaggedText(current, { pieces: source }).join(''), lang);
    if (value === written) return current;
    const back = icuPluralsBack(value, like);
    const before = written === undefined ? undefined : icuPluralsBack(written, like).added;
    // Added branches as written: the person edited the source's branches only; they follow again.
    const asWritten = before?.length === back.added.length && before.every((b, i) => b === back.added[i]);
    if (back.added.length && !asWritten) return undefined;
    value = back.message;
  }
  return inSourcePieces(value, source);
}

/** The texts of pieces between their code pieces (one more than there are code pieces). */
function gaps(pieces: readonly Piece[]): string[] {
  const out = [''];
  for (const p of pieces)
    if (p.code) out.push('');
    else out[out.length - 1] += p.text;
  return out;
}

/**
 * A value tagged in its source's pieces: its placeholders (and an ICU message's structure) must be
 * the source's, in the source's order; the text between two of them goes in the source's text piece
 * there (the writer puts code pieces where the source has them, so a value whose placeholders
 * moved, as `%s löschen?` of `Delete %s?`, would come back as ` löschen?%s`).
 */
function inSourcePieces(value: string, source: readonly Piece[]): string | undefined {
  const edited = protectPlaceholders(value);
  const codes = (ps: readonly Piece[]) => ps.filter((p) => p.code).map((p) => p.text);
  const [mine, theirs] = [codes(edited), codes(source)];
  if (mine.length !== theirs.length || mine.some((c, i) => c !== theirs[i])) return undefined;
  const texts = gaps(edited);
  const placed = new Set<number>();
  let gap = 0;
  const pieces = source.map((p): Piece => {
    if (p.code) {
      gap++;
      return p;
    }
    placed.add(gap);
    return { text: texts[gap] ?? '' };
  });
  // Text where the source has none (before a placeholder the source starts with) has no piece to go in.
  if (texts.some((t, i) => t !== '' && !placed.has(i))) return undefined;
  return taggedText({ pieces });
}
