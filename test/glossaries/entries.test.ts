import { describe, expect, it } from 'vitest';
import { diffEntries, diffCounts, entriesHash, parseEntries } from '../../src/manifest/glossary-entries.js';
import { editEntriesText } from '../../src/styles/glossary-write.js';

// Glossary files as kept in git: parsed with the line of each entry, checked as the service checks
// entries, and edited line by line when the service's entries are adopted.

describe('parseEntries', () => {
  it('reads CSV with quoted fields (commas, quotes, line breaks) and the optional language columns', () => {
    const text = 'Save,Speichern\n"Cut, copy","Ausschneiden, kopieren"\n\n"Say ""hi""",Sag hallo,en,de\n';
    const { rows, problems } = parseEntries(text, 'csv', { source_lang: 'en', target_lang: 'de' });
    expect(problems).toEqual([]);
    expect(rows.map((r) => [r.source, r.target, r.line])).toEqual([
      ['Save', 'Speichern', 1],
      ['Cut, copy', 'Ausschneiden, kopieren', 2],
      ['Say "hi"', 'Sag hallo', 4],
    ]);
  });

  it('names the line of each bad entry: duplicate, empty side, stray whitespace, wrong pair, bad columns', () => {
    const text = [
      'Save,Speichern', // 1
      'Open,', // 2: empty target
      ' Close,Schließen', // 3: whitespace
      'Save,Sichern', // 4: duplicate of line 1
      'Print,Drucken,en,fr', // 5: other pair
      'lonely', // 6: one column
      'Help,Hilfe', // 7: fine
    ].join('\n');
    const { problems } = parseEntries(text, 'csv', { source_lang: 'en', target_lang: 'de' });
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [2, 'empty target term'],
      [3, 'stray whitespace around the source term " Close"'],
      [4, 'duplicate source term "Save" (first on line 1)'],
      [5, "languages en-fr do not match the file's pair en-de"],
      [6, 'expected "source,target" (no comma)'],
    ]);
  });

  it('reads TSV and refuses a term holding a tab', () => {
    const { rows, problems } = parseEntries('Save\tSpeichern\r\nA\tB\tC\n', 'tsv');
    expect(rows.map((r) => r.source)).toEqual(['Save']);
    expect(problems).toEqual([{ line: 2, message: 'more than one tab: a term cannot hold a tab' }]);
  });
});

describe('diff and hash', () => {
  it('counts entries added, removed and changed; the hash ignores order', () => {
    const a = new Map([
      ['Save', 'Speichern'],
      ['Open', 'Öffnen'],
    ]);
    const b = new Map([
      ['Open', 'Aufmachen'],
      ['Print', 'Drucken'],
    ]);
    const d = diffEntries(a, b);
    expect(diffCounts(d)).toBe('1 added, 1 removed, 1 changed');
    expect(entriesHash(new Map([...a].reverse()))).toBe(entriesHash(a));
    expect(entriesHash(b)).not.toBe(entriesHash(a));
  });
});

describe('editEntriesText (adopting the service entries into a file)', () => {
  it('changes only the lines of changed entries, drops removed ones, appends new ones', () => {
    const text = 'Save,Speichern\n\n"Cut, copy","Ausschneiden,\nkopieren"\nOpen,Öffnen\n';
    const next = editEntriesText(
      text,
      'csv',
      new Map([
        ['Save', 'Speichern'],
        ['Open', 'Aufmachen'],
        ['Print', 'Drucken'],
      ]),
    );
    expect(next).toBe('Save,Speichern\n\nOpen,Aufmachen\nPrint,Drucken\n');
  });

  it('leaves a file whose entries match byte for byte (CRLF, no final newline)', () => {
    const text = 'Save,Speichern\r\nOpen,Öffnen';
    const entries = new Map([
      ['Save', 'Speichern'],
      ['Open', 'Öffnen'],
    ]);
    expect(editEntriesText(text, 'csv', entries)).toBe(text);
  });
});
