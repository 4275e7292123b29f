// CSV string files with a column per language (docs/strings/csv.md): the key, source and target
// columns named by the mapping; the target's column filled or added; quoting, doubled quotes, line
// breaks inside quoted cells, the delimiter, line endings and a byte order mark kept; hostile
// translations stay data; a broken file is refused naming its file and line.
// The fixtures are written by hand in the layout spreadsheet exports have (Excel's BOM, a
// semicolon-separated CRLF file as a German Excel writes it); csv-parse reads them back here.
// python/strings.csv is written by Python's csv module (python/make-csv.py: QUOTE_MINIMAL, CRLF
// rows, a bare LF inside a quoted cell, unquoted spaces); Python's csv reader reads outputs back.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, type FormatOptions, type TranslationOf } from '../../src/documents/index.js';
import { PlaceholderCheckError, type StringDocument } from '../../src/documents/formats/strings/keyed.js';
import { createFixture } from '../sync/fixture.js';
import { segmentsOf, shout } from './string-file.js';
import {
  checkAgainst,
  findingsAbout,
  FIXTURES,
  HAS_PYTHON,
  pythonReads,
  syncGoldenThenEdit,
} from './format-sync.js';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-csv-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

const EN = path.join(FIXTURES, 'en.csv');
const SEMICOLON = path.join(FIXTURES, 'semicolon.csv');
const SEMICOLON_COLUMNS: FormatOptions = {
  csv: { keyColumn: 'id', sourceColumn: 'text_en', targetColumn: 'text_{lang}' },
};

const open = async (file = EN, formatOptions?: FormatOptions, read?: { side: 'target'; lang: string }) =>
  (await openDocument(file, {
    format: 'csv',
    ...(formatOptions ? { formatOptions } : {}),
    ...read,
  })) as StringDocument;

let n = 0;
/** Writes `doc` into `lang` (default translation: shout) and answers the bytes written. */
async function write(
  doc: StringDocument,
  lang: string,
  translationOf: TranslationOf = shout,
): Promise<Buffer> {
  const out = path.join(dir, `out-${n++}.csv`);
  await doc.write(translationOf, { path: out, format: 'csv' }, { targetLang: lang });
  return fs.readFile(out);
}

const rows = (bytes: Buffer, delimiter = ',') =>
  parse(bytes, { bom: true, delimiter, relax_column_count: true }) as string[][];

describe('CSV string files', () => {
  it('each row with words in its source cell is a segment named by its key', async () => {
    const doc = await open();
    expect((await segmentsOf(doc)).map((s) => s.where)).toEqual([
      'key app.title',
      'key share.button',
      'key share.hint',
      'key welcome',
      'key delete.confirm',
    ]);
    // quotes undone, a line break inside a quoted cell and spaces around a value kept
    expect(doc.values().get('share.hint')).toBe('Tap "Share" to send');
    expect(doc.values().get('welcome')).toBe('Welcome, %s!\nYou have {count} photos.');
    expect(doc.values().get('delete.confirm')).toBe(' Delete this album? ');
  });

  it('a new target column is added after the last; every other byte stays, BOM and quoting too', async () => {
    const src = await fs.readFile(EN);
    const out = await write(await open(), 'de');
    // Each row up to its end is the source's, BOM included; the new cell comes after it. A
    // quoted source cell gives a quoted new one, its quotes doubled; a row with no words an empty one.
    const added = [
      ',de',
      ',«PHOTO LIBRARY»',
      ',"«SHARE, THEN SEND»"',
      ',"«TAP ""SHARE"" TO SEND»"',
      '',
      '',
      ',"«WELCOME, »%s«!\nYOU HAVE »{count}« PHOTOS.»"',
      ',%Y-%m-%d',
      ',',
      ',« DELETE THIS ALBUM? »',
      '',
    ];
    const lines = src.toString('utf8').split('\n');
    expect(lines).toHaveLength(added.length);
    expect(out).toEqual(Buffer.from(lines.map((l, i) => l + added[i]).join('\n')));
    expect(out.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const table = rows(out);
    expect(table.map((r) => r.length)).toEqual(table.map(() => 5));
    expect(table[4]).toEqual([
      'welcome',
      'Welcome, %s!\nYou have {count} photos.',
      'Bienvenue, %s !\nVous avez {count} photos.',
      'Two lines',
      '«WELCOME, »%s«!\nYOU HAVE »{count}« PHOTOS.»',
    ]);
    expect(table[5]).toEqual(['format.date', '%Y-%m-%d', '', 'Not text', '%Y-%m-%d']);
  });

  it('an existing target column is filled in place; writing the same translation again gives the same bytes', async () => {
    const src = (await fs.readFile(EN, 'utf8')).replace(/^\uFEFF/, '');
    const fr = await write(await open(), 'fr');
    const table = rows(fr);
    expect(table[0]).toEqual(['key', 'en', 'fr', 'comment']);
    expect(table[1]![2]).toBe('«PHOTO LIBRARY»');
    expect(table[2]).toEqual([
      'share.button',
      'Share, then send',
      '«SHARE, THEN SEND»',
      'Button; keep it short',
    ]);
    // the file's cells other than fr's are as they were
    const others = (t: string[][]) => t.map((r) => r.filter((_, i) => i !== 2));
    expect(others(table)).toEqual(others(rows(Buffer.from(src))));
    // the output read back as a source, translated the same: byte-identical
    const outFile = path.join(dir, 'fr-again.csv');
    await fs.writeFile(outFile, fr);
    expect(await write(await open(outFile), 'fr')).toEqual(fr);
    // an identity translation into a column that holds it already changes nothing
    const deFile = path.join(dir, 'de-identity.csv');
    await fs.writeFile(deFile, await write(await open(), 'de', () => undefined));
    const identity = await fs.readFile(deFile);
    expect(await write(await open(deFile), 'de', () => undefined)).toEqual(identity);
  });

  it('columns named by the mapping; the delimiter, CRLF line ends and a person’s cell are kept', async () => {
    const src = await fs.readFile(SEMICOLON, 'utf8');
    const doc = await open(SEMICOLON, SEMICOLON_COLUMNS);
    expect([...doc.values().keys()]).toEqual(['save', 'cancel', 'files']);
    const out = (await write(doc, 'de')).toString('utf8');
    expect(out).toBe(
      src
        .replace('save;Save;;', 'save;Save;«SAVE»;')
        .replace('cancel;Cancel;Abbrechen;', 'cancel;Cancel;«CANCEL»;')
        .replace(
          'files;"{count} files; {size} MB";;',
          'files;"{count} files; {size} MB";"{count}« FILES; »{size}« MB»";',
        ),
    );
    expect(out.split('\r\n')).toHaveLength(src.split('\r\n').length);
    // read back in German, as the output checks and a person's edit are read
    const back = await open(path.join(dir, `out-${n - 1}.csv`), SEMICOLON_COLUMNS, {
      side: 'target',
      lang: 'de',
    });
    expect(back.values().get('cancel')).toBe('«CANCEL»');
    // without the mapping's columns the file is not what it seems: the error names the setting
    await expect(open(SEMICOLON, { csv: { keyColumn: 'key' } })).rejects.toThrow(
      /the \.csv file has no column "key" \(csv\.key_column\); its header \(line 1\) names "id", "text_en", "text_de", "notes"/,
    );
  });

  it('hostile translations (delimiters, quotes, line ends, RTL) stay data', async () => {
    const hostile = `a,b;c\t"q" ""x"\r\nnext row,\n\u202Eمرحبا, `;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    const out = await write(await open(), 'ar', evil);
    const table = rows(out);
    expect(table).toHaveLength(8);
    expect(table[1]).toEqual(['app.title', 'Photo Library', 'Photothèque', 'Window title', hostile]);
    const back = await open(path.join(dir, `out-${n - 1}.csv`), undefined, { side: 'target', lang: 'ar' });
    expect(back.values().get('share.hint')).toBe(hostile);
    expect(back.values().get('welcome')).toBe(`${hostile}%s${hostile}{count}${hostile}`);
  });

  it('the output checks pass on good output and catch a dropped placeholder', async () => {
    const check = (output: string) => checkAgainst('en.csv', output, 'csv');
    const good = path.join(dir, 'good.csv');
    await fs.writeFile(good, await write(await open(), 'de'));
    const passed = await check(good);
    expect(passed.outcome).not.toBe('failed');
    expect(findingsAbout(passed, '%s')).toEqual([]);
    const bad = path.join(dir, 'bad.csv');
    await fs.writeFile(bad, (await fs.readFile(good, 'utf8')).replace('»%s«', ''));
    expect(findingsAbout(await check(bad), '%s')).toHaveLength(1);
    const madeUp: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : `${p.text} {0}`));
    const out = path.join(dir, 'made-up.csv');
    await expect(
      (await open()).write(madeUp, { path: out, format: 'csv' }, { targetLang: 'de' }),
    ).rejects.toThrow(PlaceholderCheckError);
    await expect(fs.access(out)).rejects.toThrow();
  });

  it('a broken file is refused naming its line', async () => {
    const file = async (name: string, text: string) => {
      const p = path.join(dir, name);
      await fs.writeFile(p, text);
      return p;
    };
    await expect(open(await file('open-quote.csv', 'key,en\na,"one\nb,two\nc,three\n'))).rejects.toThrow(
      /the \.csv file is not valid CSV \(line 2\): a quoted field is never closed/,
    );
    await expect(open(await file('stray-quote.csv', 'key,en\na,one\nb,"two"x\n'))).rejects.toThrow(
      /the \.csv file is not valid CSV \(line 3\)/,
    );
    await expect(open(await file('twice.csv', 'key,en\na,one\nb,two\na,three\n'))).rejects.toThrow(
      /the \.csv file line 4: the key "a" is on line 2 too/,
    );
    await expect(open(await file('no-key.csv', 'key,en\n,one\n'))).rejects.toThrow(
      /the \.csv file line 2: the row has text but no key/,
    );
    const twoDe = await open(await file('two-de.csv', 'key,en,de,de\na,one,,\n'));
    await expect(write(twoDe, 'de')).rejects.toThrow(/names the column "de" twice in its header \(line 1\)/);
  });
});

describe('a CSV file on the segment path', () => {
  it('the local service’s German is the golden file; an edit sends only the changed value', async () => {
    await syncGoldenThenEdit({
      name: 'en.csv',
      output: 'src/ui/{lang}.csv',
      golden: 'de.csv',
      edit: (src) => src.replace('Photo Library', 'Photo Album'),
      edited: 1,
    });
  });

  it('the mapping’s csv: columns reach the sync: its own key, source and target columns', async () => {
    await syncGoldenThenEdit({
      name: 'semicolon.csv',
      output: 'src/ui/semicolon.{lang}.csv',
      golden: 'semicolon.de.csv',
      edit: (src) => src.replace('Cancel', 'Cancel it'),
      edited: 1,
      mapping: { csv: { key_column: 'id', source_column: 'text_en', target_column: 'text_{lang}' } },
    });
  });

  it('a broken file fails its sync naming the file and the line; nothing is written', async () => {
    const fx = await createFixture({
      manifest: {
        mappings: [
          {
            name: 'ui',
            source: 'src/ui',
            include: ['en.csv'],
            output: 'src/ui/{lang}.csv',
            method: 'segments',
            source_lang: 'en',
            targets: [{ lang: 'de' }],
          },
        ],
      },
      files: { 'ui/en.csv': 'key,en\nok,Fine\nbad,"Open quote\nnext,Row\n' },
    });
    try {
      const summary = await fx.sync();
      expect(summary.failed.map((f) => [f.file, f.error])).toEqual([
        [
          'en.csv',
          expect.stringMatching(/\.csv file is not valid CSV \(line 3\): a quoted field is never closed/),
        ],
      ]);
      expect(fx.exists('src/ui/de.csv')).toBe(false);
    } finally {
      await fx.close();
    }
  });
});

describe('a CSV file Python’s csv module wrote', () => {
  const PY = path.join(FIXTURES, 'python/strings.csv');

  it('the de column filled in place, every other cell kept; the same translation again, the same bytes', async () => {
    const de = await write(await open(PY), 'de');
    const others = (t: string[][]) => t.map((r) => r.filter((_, i) => i !== 2));
    expect(others(rows(de))).toEqual(others(rows(await fs.readFile(PY))));
    expect(rows(de)[1]).toEqual(['app.title', 'Photo Library', '«PHOTO LIBRARY»', 'Window title']);
    const again = path.join(dir, 'python-again.csv');
    await fs.writeFile(again, de);
    expect(await write(await open(again), 'de')).toEqual(de);
    await syncGoldenThenEdit({
      name: 'strings.csv',
      from: 'python/strings.csv',
      output: 'src/ui/strings.{lang}.csv',
      golden: 'python/strings.de.csv',
      edit: (src) => src.replace('Photo Library', 'Photo Album'),
      edited: 1,
    });
  });

  it.skipIf(!HAS_PYTHON)('Python’s csv reader reads hostile translations back as data', async () => {
    const hostile = `a,b;c\t"q" ""x"\r\nnext row,\n\u202Eمرحبا, `;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    await write(await open(PY), 'de', evil);
    const table = pythonReads('read-csv.py', path.join(dir, `out-${n - 1}.csv`)) as string[][];
    expect(table.map((r) => r.length)).toEqual(Array(7).fill(4));
    expect(table[1]).toEqual(['app.title', 'Photo Library', hostile, 'Window title']);
    expect(table[4]![2]).toBe(`${hostile}%s${hostile}{count}${hostile}`);
    expect(table[0]).toEqual(['key', 'en', 'de', 'note']);
    expect(
      (pythonReads('read-csv.py', path.join(FIXTURES, 'python/strings.de.csv')) as string[][])[6],
    ).toEqual(rows(await fs.readFile(path.join(FIXTURES, 'python/strings.de.csv')))[6]);
  });
});
