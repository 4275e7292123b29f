import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inlineOfTagged, taggedSource, taggedTarget } from '../../src/memory/inline.js';
import { readTmx, type TmxUnit } from '../../src/memory/tmx-reader.js';
import { tmxInline } from '../../src/memory/tmx-writer.js';

// TMX inline markup onto the pipeline's inline tags and back (src/memory/inline.ts): what XLIFF's
// import (issue 47) builds on too.

async function unitsOf(xml: string | Buffer): Promise<TmxUnit[]> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-tmx-')), 'm.tmx');
  fs.writeFileSync(file, xml);
  const out: TmxUnit[] = [];
  for await (const items of readTmx(file)) for (const i of items) if ('variants' in i) out.push(i);
  fs.rmSync(path.dirname(file), { recursive: true });
  return out;
}

const tmx = (seg: string, target: string) =>
  `<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>${seg}</seg></tuv><tuv xml:lang="de"><seg>${target}</seg></tuv></tu></body></tmx>`;

async function pair(seg: string, target: string): Promise<[string, string]> {
  const [u] = await unitsOf(tmx(seg, target));
  const src = taggedSource(u!.variants[0]!.content);
  return [src.tagged, taggedTarget(src, u!.variants[1]!.content)];
}

describe('TMX inline markup', () => {
  it('a bold run moved by the translation keeps its piece', async () => {
    expect(
      await pair(
        'Press <bpt i="1">&lt;b&gt;</bpt>Start<ept i="1">&lt;/b&gt;</ept> now.',
        '<bpt i="1">&lt;b&gt;</bpt>Start<ept i="1">&lt;/b&gt;</ept> jetzt drücken.',
      ),
    ).toEqual([
      '<g id="0">Press </g><g id="1">Start</g><g id="2"> now.</g>',
      '<g id="1">Start</g><g id="0"> jetzt drücken.</g>',
    ]);
  });

  it('placeholders without x pair by order; <it> ends a run; <hi> is a run; code content is not text', async () => {
    expect(await pair('A <ph>{0}</ph> b <ph>{1}</ph>.', 'A <ph>{0}</ph> B <ph>{1}</ph>.')).toEqual([
      '<g id="0">A </g><x id="1"/><g id="2"> b </g><x id="3"/><g id="4">.</g>',
      '<g id="0">A </g><x id="1"/><g id="2"> B </g><x id="3"/><g id="4">.</g>',
    ]);
    expect((await pair('one <it pos="begin">&lt;i&gt;</it>two', 'eins zwei'))[0]).toBe(
      '<g id="0">one </g><g id="1">two</g>',
    );
    expect((await pair('x <hi x="7">y</hi>', 'x y'))[0]).toBe('<g id="0">x </g><g id="1">y</g>');
    expect(await pair('Fish &amp; chips', 'Fisch &amp; Pommes')).toEqual([
      'Fish &amp; chips',
      'Fisch &amp; Pommes',
    ]);
  });

  it('the export form reads back as the same tagged segment, empty runs included', async () => {
    for (const tagged of [
      '<g id="0">Click </g><g id="1"></g><x id="2"/><g id="3"> now &amp; then</g>',
      'plain &lt;text&gt;',
    ]) {
      const [u] = await unitsOf(tmx(tmxInline(tagged), tmxInline(tagged)));
      const src = taggedSource(u!.variants[0]!.content);
      expect(src.tagged).toBe(tagged);
      expect(taggedTarget(src, u!.variants[1]!.content)).toBe(tagged);
    }
    expect(inlineOfTagged('a')).toEqual([{ t: 'text', text: 'a' }]);
  });

  it('reads UTF-16 big-endian without a BOM, and names the line of a <tuv> without a language', async () => {
    const be = Buffer.from(tmx('Hi', 'Hallo'), 'utf16le').swap16();
    expect((await unitsOf(be))[0]!.variants.map((v) => v.lang)).toEqual(['en', 'de']);
    await expect(
      unitsOf(
        '<tmx version="1.4"><header srclang="en"/>\n<body>\n<tu><tuv><seg>x</seg></tuv></tu></body></tmx>',
      ),
    ).rejects.toMatchObject({ line: 3, message: 'a <tuv> without xml:lang' });
    await expect(unitsOf('<html><body/></html>')).rejects.toThrow(
      /not a TMX file: the root element is <html>/,
    );
  });
});
