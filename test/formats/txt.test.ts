import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { DocumentFormatError } from '../../src/service/engine/types.js';
import { SAMPLES, STYLE_24H_CURLY, checkSegment, workdir, type Workdir } from './helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

describe('txt', () => {
  it('translates every line of the sample, keeping line count, blank lines and line endings', async () => {
    const src = join(SAMPLES, 'readme.txt');
    const source = await readFile(src, 'utf8');
    for (const lang of ['de', 'fr']) {
      const { out, characters } = await w.translate(src, lang);
      const result = await readFile(out, 'utf8');
      const a = source.split('\n');
      const b = result.split('\n');
      expect(b).toHaveLength(a.length);
      a.forEach((line, i) => expect(checkSegment(line, b[i] as string, lang)).toBeUndefined());
      expect(characters).toBe([...source.replace(/\n/g, '')].length);
    }
  });

  it('keeps a UTF-16LE file with its BOM and CRLF line endings', async () => {
    const src = join(SAMPLES, 'windows-notes.txt');
    const { out } = await w.translate(src, 'de');
    const bytes = await readFile(out);
    expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    const text = iconv.decode(bytes.subarray(2), 'utf-16le');
    expect(text).toContain('Willkommen bei locsync.\r\n');
    expect(text.split('\r\n')).toHaveLength(
      iconv.decode((await readFile(src)).subarray(2), 'utf-16le').split('\r\n').length,
    );
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

  it('rejects a binary file named .txt and an empty file', async () => {
    const png = await readFile(join(SAMPLES, 'images', 'logo.png')).catch(() =>
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 0, 0]),
    );
    const bin = await w.file('binary.txt', png);
    await expect(w.translate(bin, 'de')).rejects.toThrow(DocumentFormatError);
    await expect(w.translate(bin, 'de')).rejects.toThrow(/binary/);
    const empty = await w.file('empty.txt', '');
    await expect(w.translate(empty, 'de')).rejects.toThrow(/empty/);
  });
});
