// Corrupt or mislabelled input ends in a DocumentFormatError with a clear message: never a crash or hang.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentFormatError } from '../../src/local-service/engine/types.js';
import { SAMPLES, workdir, type Workdir } from './helpers.js';
import { makeZip, readZip } from './zip-helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

async function rejects(
  path: string,
  message: RegExp,
  opts?: Parameters<Workdir['translate']>[2],
): Promise<void> {
  const err = await w.translate(path, 'de', opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `${path} is rejected`).toBeInstanceOf(DocumentFormatError);
  expect((err as Error).message).toMatch(message);
}

const CONTENT_TYPES =
  '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>';

describe('corrupt and mislabelled documents', () => {
  it('empty files of every format', async () => {
    for (const ext of ['docx', 'pptx', 'xlsx', 'pdf', 'doc', 'txt', 'html', 'srt', 'xlf', 'png', 'jpg']) {
      await rejects(await w.file(`empty.${ext}`, ''), /empty/);
    }
  });

  it('a .docx, .pptx or .xlsx that is not a zip', async () => {
    for (const ext of ['docx', 'pptx', 'xlsx']) {
      await rejects(
        await w.file(`text.${ext}`, 'This is plain text, not a zip package.\n'.repeat(20)),
        /not a readable zip package/,
      );
    }
  });

  it('a zip of the wrong kind (a presentation named .docx)', async () => {
    const pptx = await readFile(join(SAMPLES, 'office', 'slides.pptx'));
    await rejects(await w.file('slides.docx', pptx), /not a valid Word document.*word\/document\.xml/);
  });

  it('a zip bomb: a highly compressed huge entry', async () => {
    const bomb = await makeZip([
      ['[Content_Types].xml', CONTENT_TYPES],
      ['word/document.xml', '<w:document/>'],
      ['word/media/zeros.bin', Buffer.alloc(16 * 1024 * 1024)],
    ]);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await rejects(await w.file('bomb.docx', bomb), /zip bomb/);
  });

  it('a package whose total uncompressed size is over the limit', async () => {
    const docx = await readFile(join(SAMPLES, 'office', 'report.docx'));
    await rejects(await w.file('big.docx', docx), /zip bomb.*more than the limit/, {
      engine: { limits: { maxUncompressedBytes: 10_000 } },
    });
  });

  it('a text part larger than the part limit', async () => {
    const docx = await readFile(join(SAMPLES, 'office', 'report.docx'));
    await rejects(await w.file('bigpart.docx', docx), /word\/document\.xml is larger than 1000 bytes/, {
      engine: { limits: { maxPartBytes: 1000 } },
    });
  });

  it('an entry that inflates to more than its declared size', async () => {
    const zip = await makeZip([
      ['[Content_Types].xml', CONTENT_TYPES],
      [
        'word/document.xml',
        `<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>${'Hello there. '.repeat(2000)}</w:t></w:r></w:p></w:body></w:document>`,
      ],
    ]);
    // lower the declared uncompressed size of word/document.xml in its local header and central directory
    const name = Buffer.from('word/document.xml');
    for (const [sig, sizeOffset, nameOffset] of [
      [0x04034b50, 22, 30],
      [0x02014b50, 24, 46],
    ] as const) {
      for (let i = 0; i < zip.length - 4; i++) {
        if (
          zip.readUInt32LE(i) === sig &&
          zip.subarray(i + nameOffset, i + nameOffset + name.length).equals(name)
        ) {
          zip.writeUInt32LE(100, i + sizeOffset);
        }
      }
    }
    await rejects(await w.file('lying.docx', zip), /too many bytes/);
  });

  it('invalid XML inside a package', async () => {
    const docx = await readZip(join(SAMPLES, 'office', 'report.docx'));
    docx.set('word/document.xml', Buffer.from('<w:document><w:body><w:p></w:body>'));
    await rejects(
      await w.file('badxml.docx', await makeZip([...docx])),
      /word\/document\.xml .*not well-formed XML/,
    );
  });

  it('a binary file named .txt, .srt or .html, and an image with the wrong content', async () => {
    const png = await readFile(join(SAMPLES, 'images', 'logo.png'));
    for (const ext of ['txt', 'srt', 'html']) await rejects(await w.file(`binary.${ext}`, png), /binary/);
    await rejects(await w.file('fake.png', 'not an image'), /not a valid PNG image/);
    await rejects(await w.file('fake.jpg', png), /not a valid JPG image/);
  });

  it('a PDF that is not one, a truncated PDF, and a .doc that is not Word 97-2003', async () => {
    await rejects(await w.file('text.pdf', 'Just text, no PDF here.\n'), /not a valid PDF/);
    const pdf = await readFile(join(SAMPLES, 'office', 'report.pdf'));
    await rejects(await w.file('truncated.pdf', pdf.subarray(0, 400)), /not a valid PDF/);
    const docx = await readFile(join(SAMPLES, 'office', 'report.docx'));
    await rejects(await w.file('renamed.doc', docx), /not a valid Word 97-2003 document/);
    const ole = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(600, 7),
    ]);
    await rejects(await w.file('garbage.doc', ole), /OLE2 header is corrupt/);
    const doc = await readFile(join(SAMPLES, 'office', 'legacy-report.doc'));
    await rejects(await w.file('truncated.doc', doc.subarray(0, 700)), /truncated/);
    const scrambled = Buffer.from(doc);
    scrambled.fill(0xab, 512, 4096);
    await rejects(await w.file('scrambled.doc', scrambled), /could not be read/);
  });
});
