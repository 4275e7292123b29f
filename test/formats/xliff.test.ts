import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentFormatError } from '../../src/local-service/engine/types.js';
import { assertWellFormed } from '../../src/documents/formats/xml.js';
import { xliffUnits } from './verify.js';
import { SAMPLES, STYLE_24H_CURLY, checkSegment, workdir, type Workdir } from './helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

describe('xliff', () => {
  it('applies style rules to targets', async () => {
    const { out } = await w.translate(join(SAMPLES, 'localization', 'strings.xlf'), 'de', {
      style: STYLE_24H_CURLY,
    });
    const targets = xliffUnits(await readFile(out, 'utf8'), 'segment').map((u) => u.target ?? '');
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
      <trans-unit id="3"><source><![CDATA[Fish & chips]]> &amp; more</source></trans-unit>
    </body>
  </file>
</xliff>
`,
    );
    const { out } = await w.translate(src, 'de');
    const result = await readFile(out, 'utf8');
    assertWellFormed(result, 'legacy.xlf');
    expect(result).toContain('target-language="de"');
    const u = xliffUnits(result, 'trans-unit');
    expect(u[0]?.target).toBe('Vielen Dank!');
    expect(u[1]?.targetCodes).toEqual(['<g id="b">', '</g>', '<x id="2"/>']);
    expect(checkSegment('Press Start now', u[1]?.target ?? '', 'de')).toBeUndefined();
    expect(u[2]?.target).toMatch(/^\[de\] .*& .*&/);
    expect(result).toMatch(/<target>\[de\] [^<]*&amp; [^<]*&amp; /);
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
