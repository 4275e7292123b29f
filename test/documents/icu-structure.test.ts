import { describe, expect, it } from 'vitest';
import { icuStructureProblem } from '../../src/documents/icu-structure.js';

// What a translated ICU message may change of its source's structure: the arms its language's
// plural categories need, nothing else.
const FILES = '{count, plural, =0 {No files} one {# file} other {# files}}';
const LIKED = '{gender, select, female {She liked it} male {He liked it} other {They liked it}}';

describe('icuStructureProblem', () => {
  it('passes a translation with the same structure, words changed and moved', () => {
    expect(
      icuStructureProblem(FILES, '{count, plural, =0 {Keine Dateien} one {# Datei} other {# Dateien}}', 'de'),
    ).toBeUndefined();
    expect(
      icuStructureProblem('{name} has {n, number} points', '{n, number} Punkte hat {name}', 'de'),
    ).toBeUndefined();
    expect(icuStructureProblem('Hello {name}', 'Hallo {Name}', 'de')).toBeUndefined(); // no ICU structure: the placeholder check's
  });

  it("follows the target language's plural categories", () => {
    expect(
      icuStructureProblem(FILES, '{count, plural, =0 {ファイルなし} other {#個のファイル}}', 'ja'),
    ).toBeUndefined();
    expect(
      icuStructureProblem(
        FILES,
        '{count, plural, =0 {Brak} one {# plik} few {# pliki} many {# plików} other {# pliku}}',
        'pl',
      ),
    ).toBeUndefined();
    expect(
      icuStructureProblem(FILES, '{count, plural, =0 {Brak} one {# plik} few {pliki} other {# pliku}}', 'pl'),
    ).toBe('# missing in the "few" arm of {count, plural}');
    expect(
      icuStructureProblem(
        FILES,
        '{count, plural, =0 {Keine} one {# Datei} few {# Dateien} other {# Dateien}}',
        'de',
      ),
    ).toBe('arm "few" of {count, plural} the source does not have');
  });

  it('names what changed', () => {
    expect(icuStructureProblem(FILES, '{count, plural, one {# Datei} other {# Dateien}}', 'de')).toBe(
      'arm "=0" of {count, plural} missing',
    );
    expect(
      icuStructureProblem(FILES, '{Anzahl, plural, =0 {Keine} one {# Datei} other {# Dateien}}', 'de'),
    ).toBe('{count, plural} missing');
    expect(
      icuStructureProblem(LIKED, '{gender, select, female {Sie} male {Er} divers {Sie} other {Sie}}', 'de'),
    ).toBe('arm "divers" of {gender, select} the source does not have');
    expect(icuStructureProblem(LIKED, '{gender, select, female {Sie} other {Sie}}', 'de')).toBe(
      'arm "male" of {gender, select} missing',
    );
    expect(icuStructureProblem(LIKED, '{gender, select, female {Sie} male {Er}}', 'de')).toMatch(
      /no longer parses \(missing other clause/,
    );
    expect(
      icuStructureProblem(FILES, "{count, plural, =0 {Keine} one {'#' Datei} other {# Dateien}}", 'de'),
    ).toBe('# missing in the "one" arm of {count, plural}');
    expect(
      icuStructureProblem(
        'You have {count, plural, one {# message from {name}} other {# messages}}',
        'Du hast {count, plural, one {# Nachricht von {Name}} other {# Nachrichten}}',
        'de',
      ),
    ).toBe('{name} missing in the "one" arm of {count, plural}');
    expect(
      icuStructureProblem(FILES, '{count, plural, =0 {Keine} one {# Datei} other {# Dateien}', 'de'),
    ).toMatch(/^the ICU message no longer parses \(.+ at character \d+\)$/);
  });
});
