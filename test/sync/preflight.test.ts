import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { preflight, PREFLIGHT_HEAD_BYTES } from '../../src/sync/plan/preflight.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, type Fixture } from './fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** The first bytes of a sample, as the caller reads them, and the file's size. */
function sample(rel: string): { size: number; head: Buffer } {
  const data = fs.readFileSync(path.join(ROOT, 'samples', rel));
  return { size: data.length, head: data.subarray(0, PREFLIGHT_HEAD_BYTES) };
}

function check(name: string, content: Buffer | string) {
  const data = Buffer.from(content);
  return preflight(path.extname(name).slice(1), data.length, data.subarray(0, PREFLIGHT_HEAD_BYTES));
}

const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);

describe('preflight', () => {
  it('passes every real sample document', () => {
    for (const rel of [
      'office/report.docx',
      'office/slides.pptx',
      'office/status.xlsx',
      'office/legacy-report.doc',
      'office/report.pdf',
      'images/logo.png',
      'images/photo.jpg',
      'readme.txt',
      'localization/app.xliff',
    ]) {
      const { size, head } = sample(rel);
      expect(preflight(path.extname(rel).slice(1), size, head), rel).toEqual({ ok: true });
    }
  });

  it('skips an empty file of any kind', () => {
    for (const name of ['a.txt', 'a.docx', 'a.pdf', 'a.html'])
      expect(check(name, '')).toEqual({
        ok: false,
        reason: 'the file is empty (0 bytes): nothing to translate',
      });
  });

  it('skips Office files that are not zip archives, naming what they are', () => {
    expect(check('report.docx', 'Just some text someone saved as .docx\n')).toEqual({
      ok: false,
      reason:
        'the content does not match the .docx extension: expected a Word document (a zip archive), found text; the file is damaged or misnamed',
    });
    const pdf = sample('office/report.pdf');
    expect(preflight('XLSX', pdf.size, pdf.head)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('expected an Excel workbook (a zip archive), found a PDF'),
    });
    expect(check('deck.pptx', OLE)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('the .pptx file is password-protected (encrypted)'),
    });
  });

  it('skips a .pdf without a PDF header, and accepts one after some leading junk', () => {
    expect(check('a.pdf', Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]))).toMatchObject({
      ok: false,
      reason: expect.stringContaining(
        "expected a PDF (starting with '%PDF-'), found unrecognised binary data",
      ),
    });
    expect(check('a.pdf', `${' '.repeat(500)}%PDF-1.7\n`)).toEqual({ ok: true });
    expect(check('a.pdf', `${' '.repeat(1100)}%PDF-1.7\n`).ok).toBe(false);
  });

  it('skips a .doc that is not an OLE file (a renamed docx or RTF) and images that are not what they say', () => {
    const docx = sample('office/report.docx');
    expect(preflight('doc', docx.size, docx.head)).toMatchObject({
      ok: false,
      reason: expect.stringContaining(
        'expected a Word 97-2003 document (an OLE compound file), found a zip archive',
      ),
    });
    expect(check('old.doc', '{\\rtf1\\ansi Hello}')).toMatchObject({
      reason: expect.stringContaining('found an RTF document'),
    });
    const png = sample('images/logo.png');
    expect(preflight('jpg', png.size, png.head)).toMatchObject({
      reason: expect.stringContaining('expected a JPEG image, found a PNG image'),
    });
    const jpg = sample('images/photo.jpg');
    expect(preflight('png', jpg.size, jpg.head)).toMatchObject({
      reason: expect.stringContaining('expected a PNG image, found a JPEG image'),
    });
    expect(check('a.doc', OLE)).toEqual({ ok: true });
  });
});

describe('pre-flight before upload', () => {
  it('never uploads empty or broken documents: skipped with the reason in the summary and in status', async () => {
    fx = await createFixture({
      files: {
        'good.txt': 'Hello.\n',
        'empty.txt': '',
        'notes.docx': 'This is not a Word document.\n',
        'scan.pdf': Buffer.from([0x00, 0x01, 0x02, 0x03]),
        'real.docx': fs.readFileSync(path.join(ROOT, 'samples', 'office', 'report.docx')),
      },
    });
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    expect(first.translated).toBe(4); // good.txt and real.docx, two targets each
    expect(
      fx
        .uploads()
        .map((u) => u.filename)
        .sort(),
    ).toEqual(['good.txt', 'good.txt', 'real.docx', 'real.docx']);
    expect(first.skipped.map((s) => [s.file, s.reason, s.message]).sort()).toEqual([
      ['empty.txt', 'broken-content', 'the file is empty (0 bytes): nothing to translate'],
      [
        'notes.docx',
        'broken-content',
        expect.stringContaining('expected a Word document (a zip archive), found text'),
      ],
      ['scan.pdf', 'broken-content', expect.stringContaining("expected a PDF (starting with '%PDF-')")],
    ]);
    // The next run uploads nothing either, and says why again.
    const mark = fx.mark();
    const second = await fx.sync();
    expect(fx.uploads(mark)).toEqual([]);
    expect(second.skipped).toHaveLength(3);

    const env = { LOCSYNC_TEST_SYNC_KEY: API_KEY };
    const status = await runCli(['status', '-c', fx.manifestPath], { env, timeoutMs: 120_000 });
    expect(status.stdout).toContain('Skipped (3):');
    expect(status.stdout).toContain('docs/empty.txt: the file is empty (0 bytes): nothing to translate');
    expect(status.stdout).toContain('docs/notes.docx: the content does not match the .docx extension');
  }, 120_000);
});
