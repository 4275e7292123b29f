import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { PDFDocument, PDFHexString } from 'pdf-lib';
import { afterEach, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { readZip } from '../formats/zip-helpers.js';
import { runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, onPostgres, type Fixture } from './fixture.js';

// Pay for words, not bytes: a document saved again without an edit (a new zip container, new
// metadata, a new PDF /ID, an html comment) keeps its outputs and is not uploaded; an edit that the
// translation carries (a word, bold, a cell, a slide) is uploaded. On both state backends.

const SAMPLES = path.resolve(__dirname, '../../samples/office');
const HERE = path.resolve(__dirname, 'resave');

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const uploaded = (f: Fixture, mark: number) =>
  f
    .uploads(mark)
    .map((u) => `${u.filename}:${u.target_lang}`)
    .sort();

/** What an Office "save" without an edit does to a package: a new container and new metadata. */
async function resavePackage(file: string, editPart?: (name: string, xml: string) => string): Promise<void> {
  const parts = await readZip(file);
  const zip = new yazl.ZipFile();
  // Another entry order, other times, another compression, no folder entries.
  const names = [...parts.keys()].reverse().filter((n) => !n.endsWith('/'));
  for (const name of names) {
    let content = parts.get(name) as Buffer;
    if (name === 'docProps/core.xml')
      content = Buffer.from(
        content
          .toString('utf8')
          .replace(/<dcterms:modified([^>]*)>[^<]*</, '<dcterms:modified$1>2031-05-06T07:08:09Z<')
          .replace(/<cp:revision>[^<]*</, '<cp:revision>42<')
          .replace(/<cp:lastModifiedBy>[^<]*</, '<cp:lastModifiedBy>Someone Else<'),
      );
    if (name === 'docProps/app.xml')
      content = Buffer.from(content.toString('utf8').replace(/<TotalTime>[^<]*</, '<TotalTime>977<'));
    if (editPart && name.endsWith('.xml')) content = Buffer.from(editPart(name, content.toString('utf8')));
    zip.addBuffer(content, name, { mtime: new Date(2031, 4, 6, 7, 8, 10), compress: name.length % 2 === 0 });
  }
  // An editor adds metadata parts of its own.
  if (!parts.has('docProps/custom.xml'))
    zip.addBuffer(Buffer.from('<?xml version="1.0"?><Properties/>'), 'docProps/custom.xml');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  write(file, Buffer.concat(chunks));
}

/** Rewrite a file, with an mtime the scan cannot take for the old one. */
function write(file: string, content: Buffer | string): void {
  fs.writeFileSync(file, content);
  const t = new Date(Date.now() + 5000);
  fs.utimesSync(file, t, t);
}

/** A PDF written again: a new /ID, new dates and producer, another file layout. */
async function resavePdf(file: string): Promise<void> {
  const doc = await PDFDocument.load(fs.readFileSync(file), { updateMetadata: false });
  doc.setModificationDate(new Date(Date.UTC(2031, 4, 6)));
  doc.setProducer('Another PDF writer 9.1');
  doc.context.trailerInfo.ID = doc.context.obj([
    PDFHexString.of('00112233445566778899aabbccddeeff'),
    PDFHexString.of('ffeeddccbbaa99887766554433221100'),
  ]);
  write(file, Buffer.from(await doc.save({ useObjectStreams: false })));
}

const PAGE = (comment: string, word = 'Welcome') =>
  `<!doctype html>\n<html lang="en"><head><title>Home</title><!-- ${comment} --></head>\n` +
  `<body><h1>${word} to the cafe</h1><p>Open <b>daily</b>.</p></body></html>\n`;

function files(): Record<string, Buffer | string> {
  return {
    'report.docx': fs.readFileSync(path.join(SAMPLES, 'report.docx')),
    'slides.pptx': fs.readFileSync(path.join(SAMPLES, 'slides.pptx')),
    'status.xlsx': fs.readFileSync(path.join(SAMPLES, 'status.xlsx')),
    'memo.docx': fs.readFileSync(path.join(HERE, 'libreoffice-saved.docx')),
    'report.pdf': fs.readFileSync(path.join(SAMPLES, 'report.pdf')),
    'index.html': PAGE('built 2026-11-01 by site-gen'),
  };
}

describe('a document saved again without a change is not translated again', () => {
  it('docx/pptx/xlsx with a new container and docProps, a LibreOffice re-save, a PDF with a new /ID and dates, html with a comment changed: 0 uploads, outputs kept', async () => {
    fx = await createFixture({ files: files() });
    const first = await fx.sync();
    expect(first.translated).toBe(12);
    const src = (f: string) => path.join(fx!.src, f);
    const before = fs.readFileSync(path.join(fx.dir, 'out/de/report.docx'));
    const shaBefore = fs.readFileSync(src('report.docx'));

    await resavePackage(src('report.docx'), (name, xml) =>
      // Word's revision-save ids change on every save.
      name === 'word/document.xml' ? xml.replace(/w:rsidR="[0-9A-F]+"/g, 'w:rsidR="00A1B2C3"') : xml,
    );
    await resavePackage(src('slides.pptx'));
    await resavePackage(src('status.xlsx'));
    write(src('memo.docx'), fs.readFileSync(path.join(HERE, 'libreoffice-saved-again.docx')));
    await resavePdf(src('report.pdf'));
    write(src('index.html'), PAGE('built 2026-11-26 by site-gen 2.0'));
    expect(fs.readFileSync(src('report.docx')).equals(shaBefore)).toBe(false);

    const mark = fx.mark();
    const dry = await fx.sync({ dryRun: true });
    expect(dry.translated).toBe(0);
    expect(dry.resaved).toBe(12);
    const s = await fx.sync();
    expect(uploaded(fx, mark)).toEqual([]);
    expect(s.translated).toBe(0);
    expect(s.billedCharacters).toBe(0);
    expect(s.resaved).toBe(12);
    expect(fs.readFileSync(path.join(fx.dir, 'out/de/report.docx')).equals(before)).toBe(true);

    // The new bytes are recorded against the same translation: the next run has nothing to do.
    const again = await fx.sync();
    expect(again.unchanged).toBe(12);
    expect(again.resaved + again.translated).toBe(0);
    expect(uploaded(fx, mark)).toEqual([]);
  });

  it('one word changed, a run made bold, a cell changed, a slide added, html text changed: uploaded', async () => {
    fx = await createFixture({ files: files() });
    await fx.sync();
    const src = (f: string) => path.join(fx!.src, f);
    await resavePackage(src('report.docx'), (name, xml) =>
      name === 'word/header1.xml' ? xml.replace('Confidential', 'Secret') : xml,
    );
    // A run of the LibreOffice document made bold.
    await resavePackage(src('memo.docx'), (name, xml) =>
      name === 'word/document.xml'
        ? xml.replace('<w:rPr></w:rPr><w:t>Quarterly', '<w:rPr><w:b/></w:rPr><w:t>Quarterly')
        : xml,
    );
    await resavePackage(src('status.xlsx'), (name, xml) =>
      name === 'xl/sharedStrings.xml' ? xml.replace('In progress', 'Blocked') : xml,
    );
    const slides = await readZip(src('slides.pptx'));
    await resavePackage(src('slides.pptx'), (name, xml) =>
      name === '[Content_Types].xml'
        ? xml.replace(
            '</Types>',
            '<Override PartName="/ppt/slides/slide9.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/></Types>',
          )
        : xml,
    );
    // The slide itself: a copy of the first one.
    const withSlide = await readZip(src('slides.pptx'));
    withSlide.set('ppt/slides/slide9.xml', slides.get('ppt/slides/slide1.xml') as Buffer);
    const zip = new yazl.ZipFile();
    for (const [name, content] of withSlide) if (!name.endsWith('/')) zip.addBuffer(content, name);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    write(src('slides.pptx'), Buffer.concat(chunks));
    write(src('index.html'), PAGE('built 2026-11-01 by site-gen', 'Hello'));

    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.resaved).toBe(0);
    expect(uploaded(fx, mark)).toEqual(
      [
        'index.html:DE',
        'index.html:FR',
        'memo.docx:DE',
        'memo.docx:FR',
        'report.docx:DE',
        'report.docx:FR',
        'slides.pptx:DE',
        'slides.pptx:FR',
        'status.xlsx:DE',
        'status.xlsx:FR',
      ].sort(),
    );
  });
});

/**
 * The state as locsync left it before content digests (no digests, verified marks and snapshots
 * taken), upgraded by the migration that brought them.
 */
async function stateFromBeforeDigests(f: Fixture): Promise<void> {
  if (onPostgres) {
    const { MIGRATIONS, CONTENT_DIGESTS_MIGRATION } = await import('../../src/state/postgres/migrations.js');
    const client = new pg.Client({ connectionString: (await f.load()).manifest.state });
    await client.connect();
    try {
      await client.query('DROP TABLE content_digests');
      await client.query(MIGRATIONS[CONTENT_DIGESTS_MIGRATION] as string);
    } finally {
      await client.end();
    }
    return;
  }
  const { MIGRATIONS, CONTENT_DIGESTS_MIGRATION } = await import('../../src/state/sqlite/migrations.js');
  const st = f.openState();
  try {
    st.db.exec('DROP TABLE content_digests');
    st.db.exec(MIGRATIONS[CONTENT_DIGESTS_MIGRATION] as string);
  } finally {
    st.close();
  }
}

describe('content digests on a state from before them, and change_detection: bytes', () => {
  it('the first run after the upgrade uploads nothing and records digests; a re-save afterwards is recognised', async () => {
    fx = await createFixture({
      files: {
        'report.docx': files()['report.docx'] as Buffer,
        'status.xlsx': files()['status.xlsx'] as Buffer,
      },
    });
    await fx.sync();
    await fx.sync(); // verified marks
    await fx.sync(); // the mapping's snapshot: the no-op path that reads nothing
    await stateFromBeforeDigests(fx);
    const mark = fx.mark();
    const first = await fx.sync();
    expect(uploaded(fx, mark)).toEqual([]);
    expect(first.unchanged).toBe(4);
    await resavePackage(path.join(fx.src, 'report.docx'));
    const s = await fx.sync();
    expect(uploaded(fx, mark)).toEqual([]);
    expect(s.resaved).toBe(2);
  });

  it('change_detection: bytes uploads a document whose bytes changed, content or not', async () => {
    fx = await createFixture({ files: { 'report.docx': files()['report.docx'] as Buffer } });
    const bytes = {
      edit: (l: { manifest: { mappings: Array<{ change_detection: string }> } }) => {
        for (const m of l.manifest.mappings) m.change_detection = 'bytes';
      },
    };
    await fx.sync(bytes);
    await resavePackage(path.join(fx.src, 'report.docx'));
    const mark = fx.mark();
    const s = await fx.sync(bytes);
    expect(s.resaved).toBe(0);
    expect(uploaded(fx, mark)).toEqual(['report.docx:DE', 'report.docx:FR']);
  });
});

describe('plan --why and the plan text', () => {
  it('says which part of a changed document changed, and counts re-saved documents apart', async () => {
    fx = await createFixture({
      files: {
        'report.docx': files()['report.docx'] as Buffer,
        'status.xlsx': files()['status.xlsx'] as Buffer,
      },
    });
    await fx.sync();
    await resavePackage(path.join(fx.src, 'report.docx'), (name, xml) =>
      name === 'word/header1.xml' ? xml.replace('Confidential', 'Secret') : xml,
    );
    await resavePackage(path.join(fx.src, 'status.xlsx'));
    const env = { LOCSYNC_TEST_SYNC_KEY: API_KEY };
    const why = await runCli(['plan', '-c', fx.manifestPath, '--why', path.join(fx.src, 'report.docx')], {
      env,
    });
    expect(why.code, why.stderr).toBe(0);
    expect(why.stdout).toContain('de → out/de/report.docx: translate (billed): changed');
    expect(why.stdout).toMatch(/word\/header1\.xml: paragraph \d+ text/);
    const resaved = await runCli(['plan', '-c', fx.manifestPath, '--why', 'src/status.xlsx'], { env });
    expect(resaved.stdout).toContain('re-saved, content unchanged');
    const plan = await runCli(['plan', '-c', fx.manifestPath], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('2 re-saved, unchanged');
    expect(plan.stdout).toContain('~ status.xlsx → out/de/status.xlsx (de)');
  });
});
