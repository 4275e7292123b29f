// A person's wording of an ICU plural message read back in its source's pieces (the segment memory's
// shape), whatever branches the target language added or left out when it was written.
import { describe, expect, it } from 'vitest';
import { protectPlaceholders, taggedText, wordingInSourceShape } from '../../src/documents/index.js';
import { icuPluralsFor } from '../../src/documents/formats/strings/plurals.js';

const SOURCE = '{n, plural, one {# file} other {# files in {folder}}}';
const pieces = protectPlaceholders(SOURCE);
const tagged = (value: string) => taggedText({ pieces: protectPlaceholders(value) });
/** The memory's translation (source pieces) and the value the writer wrote from it for `lang`. */
const TRANSLATION = '{n, plural, one {# plik} other {# plików w {folder}}}';
const current = tagged(TRANSLATION);
const output = (value: string) => ({ value, tagged: tagged(value) });

describe('wordingInSourceShape', () => {
  it('reads a value nobody edited as the translation it was written from (Polish adds few, many; Japanese has other only)', () => {
    for (const lang of ['pl', 'ja', 'de']) {
      const written = icuPluralsFor(TRANSLATION, lang);
      expect(wordingInSourceShape(output(written), pieces, current, lang)).toBe(current);
    }
  });

  it("takes an edit of the source's branches without the branches the target added", () => {
    const written = icuPluralsFor(TRANSLATION, 'pl');
    expect(written).toContain('few {# plików w {folder}}');
    const edited = written.replace('one {# plik}', 'one {# jeden plik}');
    expect(wordingInSourceShape(output(edited), pieces, current, 'pl')).toBe(
      tagged('{n, plural, one {# jeden plik} other {# plików w {folder}}}'),
    );
  });

  it('gives nothing for an edit it cannot keep in the source pieces: an added branch, a Japanese message', () => {
    const pl = icuPluralsFor(TRANSLATION, 'pl').replace('few {# plików', 'few {# pliki');
    expect(wordingInSourceShape(output(pl), pieces, current, 'pl')).toBeUndefined();
    const ja = '{n, plural, other {# 個のファイル ({folder})}}';
    expect(wordingInSourceShape(output(ja), pieces, current, 'ja')).toBeUndefined();
  });

  it('places a value without plurals in its source pieces, or gives nothing when its placeholders changed or moved', () => {
    const plain = protectPlaceholders('Delete %s?');
    const current = tagged('%s löschen?');
    expect(wordingInSourceShape(output('Lösche %s!'), plain, current, 'de')).toBe(tagged('Lösche %s!'));
    // No text after the placeholder: the source's text piece there is empty.
    expect(wordingInSourceShape(output('Lösche %s'), plain, current, 'de')).toBe(
      taggedText({ pieces: [{ text: 'Lösche ' }, { text: '%s', code: true }, { text: '' }] }),
    );
    // The words around a placeholder go in the source's text pieces, whichever side they are on.
    expect(wordingInSourceShape(output('%s endgültig löschen?'), plain, current, 'de')).toBe(
      taggedText({ pieces: [{ text: '' }, { text: '%s', code: true }, { text: ' endgültig löschen?' }] }),
    );
    expect(wordingInSourceShape(output('Lösche %d?'), plain, current, 'de')).toBeUndefined();
    // Placeholders in another order have no place in the source's pieces.
    const copy = protectPlaceholders('Copy %1$s to %2$s');
    const moved = output('Nach %2$s kopieren: %1$s');
    expect(wordingInSourceShape(moved, copy, tagged('Kopiere %1$s nach %2$s'), 'de')).toBeUndefined();
  });
});
