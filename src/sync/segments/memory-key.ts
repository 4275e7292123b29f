import { hash } from 'node:crypto';

// The key of a segment translation in the segment memory: the source segment as sent (its text with
// inline tags, src/documents/tagged.ts), normalised, with both languages and the digest of the
// settings that change a translation (src/sync/plan/fingerprint.ts translationSettings). Identical
// segments in any document of any format share a key: each is bought once.

/** Unicode NFC: the same text typed or saved differently (é as one or two code points) is one segment. */
export function normaliseSegment(tagged: string): string {
  return tagged.normalize('NFC');
}

export function segmentKey(
  tagged: string,
  sourceLang: string | undefined,
  targetLang: string,
  settings: string,
): string {
  // One call, no Hash object: a first sync keys every segment of every target at least twice.
  return hash(
    'sha256',
    JSON.stringify([
      1,
      normaliseSegment(tagged),
      sourceLang?.toLowerCase() ?? null,
      targetLang.toLowerCase(),
      settings,
    ]),
  );
}

/**
 * The settings of a translation brought in from outside (a TMX import, an alignment): none, so that
 * it is found whatever the style list, glossary or formality of the target (docs/memory.md).
 */
export const ANY_SETTINGS = '*';

/** The key of a translation brought in: the segment and both languages, no settings. */
export function anySettingsKey(
  tagged: string,
  sourceLang: string | undefined | null,
  targetLang: string,
): string {
  return segmentKey(tagged, sourceLang ?? undefined, targetLang, ANY_SETTINGS);
}
