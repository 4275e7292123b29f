import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportTmx } from '../../src/memory/export.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';
import { editManifest, segmentsMapping, segmentTexts, taggedTexts, textRequests } from './helpers.js';
import { haveToolkit, importInto, po2tmx, toolkitUnits } from './memory-helpers.js';

// A translation memory brought in (docs/memory.md): a TMX made by another tool is imported, and a
// segment-path sync then sends only what the memory does not hold (the local service's request log)
// and writes the memory's wording for the rest; the memory goes out again as TMX.

const PARAGRAPHS = [
  'The pump starts when the tank is full.',
  'Check the filter every week.',
  'Replace the seal after 500 hours of use.',
  'Call the service desk if the light stays red.',
];
const MD = PARAGRAPHS.join('\n\n') + '\n';
/** What a translator approved years ago: two of the four paragraphs. */
const APPROVED: Array<[string, string]> = [
  ['Check the filter every week.', 'Den Filter jede Woche prüfen (freigegeben).'],
  [
    'Call the service desk if the light stays red.',
    'Bleibt die Lampe rot, den Kundendienst anrufen (freigegeben).',
  ],
];

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** What the local service was sent (its request log): segments and their characters. */
function sent(f: Fixture, since = 0): { texts: number; characters: number } {
  const requests = textRequests(f, since);
  return {
    texts: requests.reduce((n, r) => n + r.texts, 0),
    characters: requests.reduce((n, r) => n + r.characters, 0),
  };
}
const only = (...texts: string[]) => ({ texts: texts.length, characters: texts.join('').length });

/** A TMX as Trados writes one: UTF-16 with a BOM, regions, bold as bpt/ept, a placeholder as ph. */
function tradosTmx(units: string): string {
  return `<?xml version="1.0" encoding="UTF-16"?>
<tmx version="1.4">
  <header creationtool="SDL Language Platform" creationtoolversion="8.0" o-tmf="SDL TM8 Format" datatype="xml" segtype="sentence" adminlang="en-US" srclang="en-US" creationdate="20190305T101010Z"/>
  <body>
${units}
  </body>
</tmx>
`;
}

describe('memory import (TMX)', () => {
  it.skipIf(!haveToolkit)(
    "a po2tmx memory (en-US → de-DE): the sync sends only what it lacks and writes the memory's wording",
    async () => {
      fx = await createFixture({ manifest: { mappings: [segmentsMapping()] }, files: { 'guide.md': MD } });
      const tmx = po2tmx(fx.dir, APPROVED);
      const summary = await importInto(fx, tmx);
      expect(summary).toMatchObject({ units: 2, stored: 2, duplicates: 0, skipped: [] });
      expect(summary.translations).toEqual({ de: 2 });

      const run = await fx.sync();
      expect(run.failed).toEqual([]);
      expect(sent(fx)).toEqual(only(PARAGRAPHS[0]!, PARAGRAPHS[2]!));
      const out = await segmentTexts(path.join(fx.dir, 'out/de/guide.md'));
      expect(out[1]).toBe(APPROVED[0]![1]);
      expect(out[3]).toBe(APPROVED[1]![1]);
      expect(out[0]).not.toBe(PARAGRAPHS[0]);

      // Out again: translate-toolkit reads every unit of the export, with its wording.
      const opened = await fx.open();
      const file = path.join(fx.dir, 'export.tmx');
      try {
        const exported = await exportTmx(opened.state.memory!, file, {});
        expect(exported.units).toBe(4);
      } finally {
        await opened.close();
      }
      const units = toolkitUnits(file);
      expect(units).toHaveLength(4);
      expect(units).toEqual(expect.arrayContaining(APPROVED));
      expect(units.map((u) => u[0]).sort()).toEqual([...PARAGRAPHS].sort());
    },
  );

  it('UTF-16 with a BOM, region tags and inline tags: bold and a placeholder match the Markdown segments, and go out as TMX inline elements', async () => {
    const md = 'Click **Save** now.\n\nUse `{name}` in the greeting.\n\nA paragraph nobody translated.\n';
    fx = await createFixture({ manifest: { mappings: [segmentsMapping()] }, files: { 'ui.md': md } });
    const units = `    <tu tuid="1" changedate="20200101T000000Z">
      <tuv xml:lang="en-US"><seg>Click <bpt i="1" x="1">&lt;b&gt;</bpt>Save<ept i="1">&lt;/b&gt;</ept> now.</seg></tuv>
      <tuv xml:lang="de-DE"><seg>Jetzt auf <bpt i="1" x="1">&lt;b&gt;</bpt>Speichern<ept i="1">&lt;/b&gt;</ept> klicken.</seg></tuv>
    </tu>
    <tu tuid="2">
      <tuv xml:lang="en-US"><seg>Use <ph x="1">{name}</ph> in the greeting.</seg></tuv>
      <tuv xml:lang="de-DE"><seg>Verwenden Sie <ph x="1">{name}</ph> in der Begrüßung.</seg></tuv>
    </tu>`;
    const file = path.join(fx.dir, 'trados.tmx');
    fs.writeFileSync(
      file,
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(tradosTmx(units), 'utf16le')]),
    );
    const summary = await importInto(fx, file);
    expect(summary).toMatchObject({ units: 2, stored: 2, skipped: [] });

    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    expect(sent(fx)).toEqual(only('A paragraph nobody translated.'));
    const out = fx.read('out/de/ui.md');
    expect(out).toContain('Jetzt auf **Speichern** klicken.');
    expect(out).toContain('Verwenden Sie `{name}` in der Begrüßung.');
    expect((await taggedTexts(path.join(fx.dir, 'out/de/ui.md')))[0]).toBe(
      '<g id="0">Jetzt auf </g><g id="1">Speichern</g><g id="2"> klicken.</g>',
    );

    // Out: the runs as <hi>, the code as <ph>; in again into an empty memory, the same segments match.
    const opened = await fx.open();
    const exported = path.join(fx.dir, 'out.tmx');
    try {
      await exportTmx(opened.state.memory!, exported, { origins: ['imported'] });
    } finally {
      await opened.close();
    }
    const text = fs.readFileSync(exported, 'utf8');
    expect(text).toContain('<seg><hi x="0">Click </hi><hi x="1">Save</hi><hi x="2"> now.</hi></seg>');
    expect(text).toMatch(/<seg><hi x="0">Use <\/hi><ph x="1"\/><hi x="2"> in the greeting.<\/hi><\/seg>/);
    expect(text).toContain('<prop type="x-origin">imported</prop>');
    expect(text).toMatch(/<header [^>]*srclang="en"/);

    await fx.close();
    fx = await createFixture({ manifest: { mappings: [segmentsMapping()] }, files: { 'ui.md': md } });
    fx.write('in.tmx', text);
    expect(await importInto(fx, path.join(fx.dir, 'in.tmx'))).toMatchObject({ units: 2, stored: 2 });
    await fx.sync();
    expect(sent(fx)).toEqual(only('A paragraph nobody translated.'));
    expect(fx.read('out/de/ui.md')).toContain('Jetzt auf **Speichern** klicken.');
  });

  it('duplicates: the newest changedate wins, the others are counted; units of no target are skipped with their line', async () => {
    fx = await createFixture({ manifest: { mappings: [segmentsMapping()] }, files: { 'a.md': 'Hello.\n' } });
    const file = path.join(fx.dir, 'dups.tmx');
    fs.writeFileSync(
      file,
      `<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="*all*" creationtool="x" creationtoolversion="1" segtype="sentence" o-tmf="x" adminlang="en" datatype="plaintext"/>
<body>
<tu changedate="20230101T000000Z"><tuv xml:lang="en"><seg>Hello.</seg></tuv><tuv xml:lang="de-AT"><seg>Servus (2023).</seg></tuv></tu>
<tu changedate="20240101T000000Z"><tuv xml:lang="en"><seg>Hello.</seg></tuv><tuv xml:lang="de"><seg>Hallo (2024).</seg></tuv></tu>
<tu changedate="20220101T000000Z"><tuv xml:lang="en"><seg>Hello.</seg></tuv><tuv xml:lang="de"><seg>Tag (2022).</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Bonjour.</seg></tuv><tuv xml:lang="fr-FR"><seg>Bonjour.</seg></tuv></tu>
</body></tmx>
`,
    );
    const summary = await importInto(fx, file);
    expect(summary).toMatchObject({ units: 4, stored: 1, duplicates: 2 });
    expect(summary.skipped).toEqual([
      { reason: 'no <tuv> in a target language of the manifest (en, fr-FR)', units: 1, lines: [7] },
    ]);
    await fx.sync();
    expect(sent(fx)).toEqual(only());
    expect(fx.read('out/de/a.md')).toBe('Hallo (2024).\n');
    // Other translation settings (here the formality): the imported wording serves still, nothing sent.
    editManifest(fx, (m) => {
      const [mapping] = m.mappings as Array<{ targets: Array<Record<string, unknown>> }>;
      mapping!.targets[0]!.formality = 'more';
    });
    const again = await fx.sync({ retranslate: 'stale' });
    expect(again).toMatchObject({ failed: [], translated: 1 });
    expect(sent(fx)).toEqual(only());
  });

  it('stats counts by language pair, origin and import; forget takes one import back', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: { 'a.md': 'Hello.\n\nGoodbye.\n' },
    });
    const tmx = (de: string) =>
      `<?xml version="1.0"?>\n<tmx version="1.4"><header srclang="en"/><body>\n<tu><tuv xml:lang="en"><seg>Hello.</seg></tuv><tuv xml:lang="de"><seg>${de}</seg></tuv></tu>\n</body></tmx>\n`;
    fx.write('one.tmx', tmx('Hallo (eins).'));
    fx.write('two.tmx', tmx('Hallo (zwei).'));
    const one = await importInto(fx, path.join(fx.dir, 'one.tmx'));
    const two = await importInto(fx, path.join(fx.dir, 'two.tmx'), { origin: 'reviewed' });
    const opened = await fx.open();
    try {
      const memory = opened.state.memory!;
      const stats = await memory.stats();
      expect(stats.pairs).toEqual([
        { source_lang: 'en', target_lang: 'de', origin: 'imported', units: 1 },
        { source_lang: 'en', target_lang: 'de', origin: 'reviewed', units: 1 },
      ]);
      expect(stats.imports.map((i) => [i.id, i.origin, i.units])).toEqual([
        [one.importId, 'imported', 1],
        [two.importId, 'reviewed', 1],
      ]);
      expect(stats.bytes).toBeGreaterThan(0);
      // The reviewed import is preferred; taken back, the imported one serves again.
      expect(await memory.forget({ importId: two.importId })).toBe(1);
      expect((await memory.stats()).imports.map((i) => i.id)).toEqual([one.importId]);
    } finally {
      await opened.close();
    }
    await fx.sync();
    expect(sent(fx)).toEqual(only('Goodbye.'));
    expect(fx.read('out/de/a.md')).toMatch(/^Hallo \(eins\)\.\n/);
  });

  it('a broken TMX names its line, exits 2 and stores nothing of the units before it', async () => {
    fx = await createFixture({ manifest: { mappings: [segmentsMapping()] }, files: { 'a.md': 'Hello.\n' } });
    const file = path.join(fx.dir, 'broken.tmx');
    const good =
      '<tu><tuv xml:lang="en"><seg>Hello.</seg></tuv><tuv xml:lang="de"><seg>Hallo.</seg></tuv></tu>\n';
    fs.writeFileSync(
      file,
      `<?xml version="1.0"?>\n<tmx version="1.4"><header srclang="en"/>\n<body>\n${good.repeat(3)}<tu><tuv xml:lang="en"><seg>Bye</tuv></tu>\n</body></tmx>\n`,
    );
    const r = await runCliOn(fx, 'memory', 'import', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:7:`);
    expect(r.stderr).toMatch(/broken XML/);
    const opened = await fx.open();
    try {
      expect(await opened.state.memory!.stats()).toMatchObject({ pairs: [], imports: [] });
    } finally {
      await opened.close();
    }
    await fx.sync();
    expect(sent(fx)).toEqual(only('Hello.'));
  });

  it.each([
    { file: 'memory.json', content: '\n{ "Hello.": "Hallo." }\n', line: 2, first: '{', seen: 'JSON' },
    {
      file: 'memory.csv',
      content: 'source,target\nHello.,Hallo.\n',
      line: 1,
      first: 's',
      seen: 'a .csv file',
    },
    {
      file: 'de.po',
      content: '\uFEFFmsgid "Hello."\nmsgstr "Hallo."\n',
      line: 1,
      first: 'm',
      seen: 'a .po file',
    },
  ])('$file (not TMX) is named for what it is, with the fix, not as broken XML', async (t) => {
    fx = await createFixture({ manifest: { mappings: [segmentsMapping()] }, files: { 'a.md': 'Hello.\n' } });
    const file = path.join(fx.dir, t.file);
    fs.writeFileSync(file, t.content);
    const r = await runCliOn(fx, 'memory', 'import', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${file}:${t.line}: not a TMX file: TMX is XML and starts with "<", this file starts with "${t.first}" (${t.seen}); export the memory as TMX`,
    );
    expect(r.stderr).toContain('po2tmx');
    expect(r.stderr).not.toContain('broken XML');
  });
});
