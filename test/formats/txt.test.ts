import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { SAMPLES, STYLE_24H_CURLY, workdir, type Workdir } from './helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

describe('txt encodings', () => {
  it('bills the characters of the non-blank lines', async () => {
    const src = join(SAMPLES, 'readme.txt');
    const source = await readFile(src, 'utf8');
    const { characters } = await w.translate(src, 'de');
    expect(characters).toBe([...source.replace(/\n/g, '')].length);
  });

  it('keeps a UTF-16LE file with its BOM and CRLF line endings', async () => {
    const src = join(SAMPLES, 'windows-notes.txt');
    const { out } = await w.translate(src, 'de');
    const bytes = await readFile(out);
    expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    const text = iconv.decode(bytes.subarray(2), 'utf-16le');
    expect(text).toContain('Willkommen bei locsync.\r\n');
  });

  it('keeps a UTF-8 BOM and applies style rules', async () => {
    const src = await w.file(
      'bom.txt',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Meet at 3:30 PM in the "lab".\n')]),
    );
    const { out } = await w.translate(src, 'fr', { style: STYLE_24H_CURLY });
    const bytes = await readFile(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text).toContain('15:30');
    expect(text).not.toContain('3:30 PM');
    expect(text).toMatch(/\u201C.*\u201D/);
  });

  it('writes a Windows-1252 file that cannot hold the translation as UTF-8 with a BOM', async () => {
    const src = await w.file('latin.txt', iconv.encode('Caf\u00e9 au lait\n', 'windows-1252'));
    const { out } = await w.translate(src, 'de');
    const bytes = await readFile(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toMatch(/^\[de\] /);
  });
});
