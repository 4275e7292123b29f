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

  it('leaves a value without plurals as the output has it', () => {
    const plain = protectPlaceholders('Delete %s?');
    const edited = output('%s endgültig löschen?');
    expect(wordingInSourceShape(edited, plain, tagged('%s löschen?'), 'de')).toBe(edited.tagged);
  });
});
