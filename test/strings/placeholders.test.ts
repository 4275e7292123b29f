// Placeholder protection and the placeholder check the QA layer runs on translated strings.
import { describe, expect, it } from 'vitest';
import {
  comparePlaceholders,
  placeholdersOf,
  protectPlaceholders,
} from '../../src/documents/placeholders.js';

const codes = (text: string) =>
  protectPlaceholders(text)
    .filter((p) => p.code)
    .map((p) => p.text);

describe('placeholders', () => {
  it('finds every syntax UI strings use and keeps the text between them translatable', () => {
    expect(codes('%s and %1$d, %@, %lld, %.2f%% and %(name)s')).toEqual([
      '%s',
      '%1$d',
      '%@',
      '%lld',
      '%.2f%%',
      '%(name)s',
    ]);
    expect(codes('Hello {name}, {{user}} has {0} items ({1,number,integer})')).toEqual([
      '{name}',
      '{{user}}',
      '{0}',
      '{1,number,integer}',
    ]);
    expect(codes('Ruby %{count} and %<total>d; nested $t(common.ok)')).toEqual([
      '%{count}',
      '%<total>d',
      '$t(common.ok)',
    ]);
    expect(codes('Read <a href="/x">the terms</a>&nbsp;now<br/>')).toEqual([
      '<a href="/x">',
      '</a>&nbsp;',
      '<br/>',
    ]);
    expect(codes('%#@files@ left')).toEqual(['%#@files@']);
    // ordinary text with a percent sign or braces in words stays text
    expect(codes('50 % off, 100% sure')).toEqual([]);
    const pieces = protectPlaceholders('Hi {name}!');
    expect(pieces.map((p) => p.text).join('')).toBe('Hi {name}!');
  });

  it('ICU messages: branch texts are translatable, the structure is code', () => {
    const msg = '{count, plural, =0 {No files} one {# file} other {# files in {folder}}}';
    expect(
      protectPlaceholders(msg)
        .filter((p) => !p.code)
        .map((p) => p.text),
    ).toEqual(['No files', ' file', ' files in ']);
    expect(
      protectPlaceholders(msg)
        .map((p) => p.text)
        .join(''),
    ).toBe(msg);
    expect(placeholdersOf(msg)).toEqual(['#', '{count, plural}', '{folder}']);
    // a select inside, and markup inside a branch
    const sel = '{gender, select, female {She shared <b>{n}</b>} other {They shared}}';
    expect(
      protectPlaceholders(sel)
        .filter((p) => !p.code)
        .map((p) => p.text),
    ).toEqual(['She shared ', 'They shared']);
  });

  it('compares a translation’s placeholders with its source’s', () => {
    expect(comparePlaceholders('Delete %d files from %s?', '%d Dateien aus %s löschen?')).toEqual({
      missing: [],
      unexpected: [],
    });
    expect(comparePlaceholders('Delete %d files from %s?', '%d Dateien löschen?')).toEqual({
      missing: ['%s'],
      unexpected: [],
    });
    expect(comparePlaceholders('Hi {name}', 'Hallo {Name}')).toEqual({
      missing: ['{name}'],
      unexpected: ['{Name}'],
    });
    expect(comparePlaceholders('<b>Bold</b> move', 'Fett verschieben')).toEqual({
      missing: ['</b>', '<b>'],
      unexpected: [],
    });
    // more plural branches in the target language are not a problem
    expect(
      comparePlaceholders(
        '{n, plural, one {# file} other {# files}}',
        '{n, plural, one {# файл} few {# файла} many {# файлов} other {# файла}}',
      ),
    ).toEqual({ missing: [], unexpected: [] });
    expect(comparePlaceholders('{n, plural, one {# file} other {# files}}', '{n} Dateien')).toEqual({
      missing: ['#', '{n, plural}'],
      unexpected: ['{n}'],
    });
  });
});
