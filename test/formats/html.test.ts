import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { SAMPLES, isPseudo, phrasebook, workdir, type Workdir } from './helpers.js';
import { htmlShape } from './verify.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

describe('html', () => {
  it('translates title/alt/placeholder attributes, keeps inline code and untouched bytes', async () => {
    const src = join(SAMPLES, 'web', 'index.html');
    const source = await readFile(src, 'utf8');
    const { out } = await w.translate(src, 'de');
    const result = await readFile(out, 'utf8');
    const attr = (html: string, name: string): string[] =>
      htmlShape(html)
        .attrs.filter((x) => x.name === name)
        .map((x) => x.value);
    expect(attr(result, 'alt')).toEqual([phrasebook.lookup('The locsync logo', 'de')]);
    expect(attr(result, 'placeholder')).toEqual([phrasebook.lookup('Search documents', 'de')]);
    expect(isPseudo(attr(result, 'title')[0] as string, 'de')).toBe(true);
    expect(attr(result, 'href')).toEqual(attr(source, 'href'));
    expect(result).toContain('<code>locsync plan</code>');
    expect(result).toContain('<script>console.log("This script is not translated.");</script>');
    // untouched bytes, but for the document's language
    expect(result.slice(0, result.indexOf('<title>'))).toBe(
      source.slice(0, source.indexOf('<title>')).replace('<html lang="en">', '<html lang="de">'),
    );
  });

  it('keeps a Windows-1252 page in Windows-1252', async () => {
    const src = join(SAMPLES, 'web', 'cafe.htm');
    const { out } = await w.translate(src, 'fr');
    const bytes = await readFile(out);
    const text = iconv.decode(bytes, 'windows-1252');
    expect(text).toContain(`<title>${phrasebook.lookup('Café opening hours', 'fr')}</title>`);
    expect(bytes.includes(Buffer.from('Horaires du caf\xe9', 'latin1'))).toBe(true);
    // pseudo-localised letters outside Windows-1252 become character references
    expect(text).toMatch(/&#x[0-9A-F]+;/);
    expect(text).toContain('charset=windows-1252');
  });
});

describe('html escaping', () => {
  it('re-escapes quotes in attributes and markup characters in text', async () => {
    const src = await w.file(
      'quotes.html',
      `<!DOCTYPE html><html><body><p title='Say "hi" &amp; go'>Fish &amp; chips &lt;3</p><p>Caf&eacute; &nbsp;time</p></body></html>`,
    );
    const { out } = await w.translate(src, 'fr');
    const result = await readFile(out, 'utf8');
    const shape = htmlShape(result);
    expect(shape.attrs.find((a) => a.name === 'title')?.value).toMatch(/^\[fr\] .*"[^"]*".*&/);
    expect(shape.blocks[0]?.text).toMatch(/&.*<3/);
    expect(result).toContain('&lt;3');
    expect(result).toContain('&nbsp;');
  });
});
