// A person's wording of a string value, as the segment memory keeps it: tagged in the pieces of its
// source segment. The writer gives an ICU message the plural branches of the target language
// (plurals.ts: Polish `few`, `many` copied from English `other`), so a value read from an output has
// more pieces than its source; read as it is, a value nobody edited would differ from its
// translation (a false correction, and a false conflict once its source changes), and an edited one
// would be written back with its branches run together.
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
 * the output has what was written from it; undefined when a person changed a branch the target
 * language added (it has no place in the source's pieces: the edit cannot be kept per segment).
 */
export function wordingInSourceShape(
  edited: OutputValue,
  source: readonly Piece[],
  current: string | undefined,
  lang: string,
): string | undefined {
  if (edited.tagged === current || !/\bplural\b/.test(edited.value)) return edited.tagged;
  const like = source.map((p) => p.text).join('');
  const written =
    current === undefined
      ? undefined
      : icuPluralsFor(fromTaggedText(current, { pieces: source }).join(''), lang);
  if (edited.value === written) return current;
  const back = icuPluralsBack(edited.value, like);
  const before = written === undefined ? undefined : icuPluralsBack(written, like).added;
  // Added branches as written: the person edited the source's branches only; they follow again.
  const asWritten = before?.length === back.added.length && before.every((b, i) => b === back.added[i]);
  if (back.added.length && !asWritten) return undefined;
  const pieces = protectPlaceholders(back.message);
  // Branches that do not fit the source's pieces (a Japanese message has `other` only, a moved
  // placeholder) would be written back run together.
  const fits =
    pieces.length === source.length &&
    pieces.every((p, i) => !!p.code === !!source[i]?.code && (!p.code || p.text === source[i]?.text));
  if (!fits) return undefined;
  return taggedText({ pieces });
}
