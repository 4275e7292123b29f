import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentFormatError } from '../../src/service/engine/types.js';
import {
  assertWellFormed,
  attribute,
  decodeXml,
  localName,
  tokenize,
} from '../../src/service/formats/xml.js';
import { SAMPLES, STYLE_24H_CURLY, checkSegment, workdir, type Workdir } from './helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

interface Unit {
  id: string;
  source: string;
  target?: string;
  /** Inline code tags of the source/target, in order. */
  sourceCodes: string[];
  targetCodes: string[];
}

/** Segments (2.x) or trans-units (1.2) with their source and target text and inline codes. */
function units(xml: string, unitName: string): Unit[] {
  const out: Unit[] = [];
  let cur: Unit | undefined;
  let inside: 'source' | 'target' | undefined;
  for (const t of tokenize(xml)) {
    const raw = xml.slice(t.start, t.end);
    if (t.kind === 'open' && localName(t.name) === unitName) {
      cur = { id: attribute(raw, 'id') ?? '', source: '', sourceCodes: [], targetCodes: [] };
    } else if (cur && t.kind === 'open' && (t.name === 'source' || t.name === 'target') && !inside) {
      inside = t.name;
      if (inside === 'target') cur.target = '';
    } else if (cur && t.kind === 'close' && t.name === inside) {
      inside = undefined;
    } else if (cur && t.kind === 'close' && localName(t.name) === unitName) {
      out.push(cur);
      cur = undefined;
    } else if (cur && inside && t.kind === 'text') {
      cur[inside] = (cur[inside] ?? '') + decodeXml(raw);
    } else if (cur && inside && (t.kind === 'open' || t.kind === 'close')) {
      (inside === 'source' ? cur.sourceCodes : cur.targetCodes).push(raw);
    }
  }
  return out;
}

describe('xliff', () => {
  for (const file of ['strings.xlf', 'app.xliff']) {
    it(`fills every target of ${file}, keeping ids and inline codes`, async () => {
      const src = join(SAMPLES, 'localization', file);
      const source = await readFile(src, 'utf8');
      const { out } = await w.translate(src, 'fr');
      const result = await readFile(out, 'utf8');
      assertWellFormed(result, file);
      expect(result).toMatch(/<xliff [^>]*trgLang="fr"/);
      const a = units(source, 'segment');
      const b = units(result, 'segment');
      expect(b.map((u) => u.id)).toEqual(a.map((u) => u.id));
      a.forEach((u, i) => {
        const r = b[i] as Unit;
        expect(r.source).toBe(u.source);
        expect(r.sourceCodes).toEqual(u.sourceCodes);
        expect(r.targetCodes).toEqual(u.sourceCodes);
        expect(checkSegment(u.source, r.target ?? '', 'fr')).toBeUndefined();
      });
    });
  }

  it('applies style rules to targets', async () => {
    const { out } = await w.translate(join(SAMPLES, 'localization', 'strings.xlf'), 'de', {
      style: STYLE_24H_CURLY,
    });
    const targets = units(await readFile(out, 'utf8'), 'segment').map((u) => u.target ?? '');
    expect(targets.some((t) => t.includes('15:30'))).toBe(true);
    expect(targets.some((t) => /\u201CSpeichern\u201D/.test(t))).toBe(true);
  });

  it('handles XLIFF 1.2 trans-units with inline <g> and <x/>', async () => {
    const src = await w.file(
      'legacy.xlf',
      `<?xml version="1.0"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" datatype="plaintext" original="a.txt">
    <body>
      <trans-unit id="1"><source>Thank you!</source></trans-unit>
      <trans-unit id="2"><source>Press <g id="b">Start</g><x id="2"/> now</source><target/></trans-unit>
    </body>
  </file>
</xliff>
`,
    );
    const { out } = await w.translate(src, 'de');
    const result = await readFile(out, 'utf8');
    assertWellFormed(result, 'legacy.xlf');
    expect(result).toContain('target-language="de"');
    const u = units(result, 'trans-unit');
    expect(u[0]?.target).toBe('Vielen Dank!');
    expect(u[1]?.targetCodes).toEqual(['<g id="b">', '</g>', '<x id="2"/>']);
    expect(checkSegment('Press Start now', u[1]?.target ?? '', 'de')).toBeUndefined();
  });

  it('rejects invalid XML, other XML and other XLIFF versions with a clear message', async () => {
    const cases: Array<[string, RegExp]> = [
      ['<xliff version="2.1"><file><unit><segment><source>x</segment></file></xliff>', /not well-formed XML/],
      ['<?xml version="1.0"?><html><body/></html>', /not an XLIFF file/],
      ['<xliff version="1.0"><file/></xliff>', /unsupported XLIFF version/],
    ];
    for (const [content, message] of cases) {
      const p = await w.file('bad.xlf', content);
      const err = await w.translate(p, 'de').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DocumentFormatError);
      expect((err as Error).message).toMatch(message);
    }
  });
});
