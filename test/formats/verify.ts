// Checks that a translated document has the source's structure and translated text, per format.
// Shared by the engine-level format tests and the HTTP integration test.
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes as T } from 'parse5';
import WordExtractor from 'word-extractor';
import { partRules } from '../../src/documents/formats/ooxml.js';
import { parseSrt } from '../../src/documents/formats/srt.js';
import { decodeText } from '../../src/documents/formats/text-encoding.js';
import { declaredCharset } from '../../src/documents/formats/html.js';
import {
  assertWellFormed,
  attribute,
  decodeXml,
  localName,
  tokenize,
} from '../../src/documents/formats/xml.js';
import { checkSegment } from './helpers.js';
import { countTags, paragraphs, readZip } from './zip-helpers.js';

async function text(path: string): Promise<string> {
  const buf = await readFile(path);
  return decodeText(buf, path, declaredCharset(buf)).text;
}

function expectSegments(sources: string[], results: string[], lang: string, where: string): void {
  expect(results, `${where}: segment count`).toHaveLength(sources.length);
  sources.forEach((s, i) =>
    expect(checkSegment(s, results[i] as string, lang), `${where} #${i}`).toBeUndefined(),
  );
}

export async function verifyTxt(src: string, out: string, lang: string): Promise<void> {
  const a = (await text(src)).split(/\r\n|\n|\r/);
  const b = (await text(out)).split(/\r\n|\n|\r/);
  expectSegments(a, b, lang, 'txt lines');
}

export async function verifySrt(src: string, out: string, lang: string): Promise<void> {
  const a = parseSrt(await text(src));
  const b = parseSrt(await text(out));
  expect(b.cues).toHaveLength(a.cues.length);
  expect(b.parts).toHaveLength(a.parts.length);
  const textLines = new Set(a.cues.flatMap((c) => c.textLines));
  a.parts.forEach((part, i) => {
    if (textLines.has(i))
      expect(checkSegment(part, b.parts[i] as string, lang), `cue line ${i}`).toBeUndefined();
    else expect(b.parts[i], `numbering/timing line ${i}`).toBe(part);
  });
}

// ---- HTML ----

export interface HtmlShape {
  tags: string[];
  /** Text of each element that holds text directly, with its tag and translate attribute. */
  blocks: Array<{ tag: string; text: string; translate: boolean }>;
  attrs: Array<{ name: string; value: string }>;
}

const textOf = (node: T.ParentNode): string =>
  node.childNodes
    .map((c) => (c.nodeName === '#text' ? (c as T.TextNode).value : 'childNodes' in c ? textOf(c) : ''))
    .join('');

export function htmlShape(html: string): HtmlShape {
  const s: HtmlShape = { tags: [], blocks: [], attrs: [] };
  const inline = new Set(['a', 'code', 'b', 'i', 'em', 'strong', 'span']);
  const walk = (node: T.ParentNode): void => {
    for (const child of node.childNodes) {
      if (!('tagName' in child)) continue;
      s.tags.push(child.tagName);
      for (const a of child.attrs) s.attrs.push({ name: a.name, value: a.value });
      const direct = child.childNodes.some((c) => c.nodeName === '#text' && (c as T.TextNode).value.trim());
      if (direct && !inline.has(child.tagName)) {
        const translate = !child.attrs.some((a) => a.name === 'translate' && a.value === 'no');
        s.blocks.push({ tag: child.tagName, text: textOf(child), translate });
      }
      walk(child);
    }
  };
  walk(parse(html));
  return s;
}

export async function verifyHtml(src: string, out: string, lang: string): Promise<void> {
  const a = htmlShape(await text(src));
  const b = htmlShape(await text(out));
  expect(b.tags).toEqual(a.tags);
  expect(b.blocks).toHaveLength(a.blocks.length);
  const untouched = new Set(['script', 'style', 'pre']);
  a.blocks.forEach((block, i) => {
    const r = b.blocks[i]?.text as string;
    if (untouched.has(block.tag) || !block.translate) expect(r).toBe(block.text);
    else expect(checkSegment(block.text, r, lang), `<${block.tag}> #${i}`).toBeUndefined();
  });
  // the document's language is the target's: <html lang>, added when the source had none; the
  // <html> tag's other attributes stay (its attributes come first in the shapes)
  const htmlAttrs = async (file: string) =>
    (parse(await text(file)).childNodes.find((c) => c.nodeName === 'html') as T.Element).attrs;
  const [srcHtml, outHtml] = [await htmlAttrs(src), await htmlAttrs(out)];
  expect(outHtml).toContainEqual({ name: 'lang', value: lang });
  expect(outHtml.filter((x) => x.name !== 'lang')).toEqual(srcHtml.filter((x) => x.name !== 'lang'));
  const aAttrs = a.attrs.slice(srcHtml.length);
  const bAttrs = b.attrs.slice(outHtml.length);
  const attrs = new Set(['title', 'alt', 'placeholder']);
  aAttrs.forEach((attr, i) => {
    const r = bAttrs[i] as { name: string; value: string };
    expect(r.name).toBe(attr.name);
    if (attrs.has(attr.name))
      expect(checkSegment(attr.value, r.value, lang), `${attr.name}=`).toBeUndefined();
    else if (!['content', 'value'].includes(attr.name)) expect(r.value).toBe(attr.value);
  });
}

// ---- XLIFF ----

export interface XliffUnit {
  id: string;
  source: string;
  target?: string;
  sourceCodes: string[];
  targetCodes: string[];
}

/** Segments (2.x) or trans-units (1.2) with their source and target text and inline codes. */
export function xliffUnits(xml: string, unitName: string): XliffUnit[] {
  const out: XliffUnit[] = [];
  let cur: XliffUnit | undefined;
  let inside: 'source' | 'target' | undefined;
  for (const t of tokenize(xml)) {
    const raw = xml.slice(t.start, t.end);
    if (t.kind === 'open' && localName(t.name) === unitName) {
      cur = { id: attribute(raw, 'id') ?? '', source: '', sourceCodes: [], targetCodes: [] };
    } else if (cur && t.kind === 'open' && (t.name === 'source' || t.name === 'target') && !inside) {
      if (t.name === 'target') cur.target = '';
      if (!t.selfClosing) inside = t.name;
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

export async function verifyXliff(src: string, out: string, lang: string): Promise<void> {
  const source = await text(src);
  const result = await text(out);
  assertWellFormed(result, out);
  const unitName = /version="1\.2"/.test(source) ? 'trans-unit' : 'segment';
  const a = xliffUnits(source, unitName);
  const b = xliffUnits(result, unitName);
  expect(b.map((u) => u.id)).toEqual(a.map((u) => u.id));
  expect(a.length).toBeGreaterThan(0);
  a.forEach((u, i) => {
    const r = b[i] as XliffUnit;
    expect(r.source).toBe(u.source);
    expect(r.sourceCodes).toEqual(u.sourceCodes);
    expect(r.targetCodes).toEqual(u.sourceCodes);
    expect(checkSegment(u.source, r.target ?? '', lang), `unit ${u.id}`).toBeUndefined();
  });
}

// ---- Office Open XML ----

const OOXML_PARTS: Record<
  'docx' | 'pptx' | 'xlsx',
  Array<{ name: RegExp; paragraph: string; text: string; tags: string[] }>
> = {
  docx: [
    {
      name: /^word\/(document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml$/,
      paragraph: 'p',
      text: 't',
      tags: ['p', 'r', 'rPr', 'tbl', 'tc', 'b', 'i'],
    },
  ],
  pptx: [
    {
      name: /^ppt\/(slides|notesSlides)\/\w+\.xml$/,
      paragraph: 'p',
      text: 't',
      tags: ['p', 'r', 'rPr', 'sp'],
    },
  ],
  xlsx: [
    { name: /^xl\/sharedStrings\.xml$/, paragraph: 'si', text: 't', tags: ['si'] },
    { name: /^xl\/worksheets\/sheet\d+\.xml$/, paragraph: 'is', text: 't', tags: ['c', 'row', 'f', 'v'] },
  ],
};

/** Same entries in the same order, non-text parts byte-identical, same elements, text translated. */
export async function verifyOoxml(
  src: string,
  out: string,
  lang: string,
  kind: 'docx' | 'pptx' | 'xlsx',
): Promise<void> {
  const a = await readZip(src);
  const b = await readZip(out);
  expect([...b.keys()]).toEqual([...a.keys()]);
  let segments = 0;
  for (const [name, content] of a) {
    const result = b.get(name) as Buffer;
    if (!partRules(kind, name)) {
      expect(result.equals(content), `${name} is byte-identical`).toBe(true);
      continue;
    }
    const part = OOXML_PARTS[kind].find((p) => p.name.test(name));
    if (!part) continue;
    const xa = content.toString('utf8');
    const xb = result.toString('utf8');
    assertWellFormed(xb, name);
    for (const tag of part.tags) expect(countTags(xb, tag), `<${tag}> in ${name}`).toBe(countTags(xa, tag));
    const pa = paragraphs(xa, part.paragraph, part.text);
    expectSegments(pa, paragraphs(xb, part.paragraph, part.text), lang, name);
    segments += pa.filter((t) => t.trim()).length;
  }
  expect(segments).toBeGreaterThan(2);
}

// ---- PDF, DOC, images ----

export async function verifyPdf(src: string, out: string, lang: string): Promise<void> {
  const { extractPdf } = await import('../../src/documents/formats/pdf.js');
  const a = await extractPdf(new Uint8Array(await readFile(src)));
  const b = await extractPdf(new Uint8Array(await readFile(out)));
  expect(b.map((p) => [Math.round(p.width), Math.round(p.height)])).toEqual(
    a.map((p) => [Math.round(p.width), Math.round(p.height)]),
  );
  a.forEach((page, i) => {
    expectSegments(
      page.paragraphs.map((p) => p.text),
      (b[i]?.paragraphs ?? []).map((p) => p.text),
      lang,
      `page ${i + 1}`,
    );
  });
}

/** Paragraph texts of the body of a docx (w:p elements of word/document.xml). */
async function docxBody(path: string): Promise<string[]> {
  const xml = (await readZip(path)).get('word/document.xml')?.toString('utf8') ?? '';
  return paragraphs(xml, 'p', 't');
}

export async function verifyPdfToDocx(src: string, out: string, lang: string): Promise<void> {
  const { extractPdf } = await import('../../src/documents/formats/pdf.js');
  const pages = await extractPdf(new Uint8Array(await readFile(src)));
  const body = (await docxBody(out)).filter((p) => p !== '');
  expectSegments(
    pages.flatMap((p) => p.paragraphs.map((q) => q.text)),
    body,
    lang,
    'pdf -> docx',
  );
}

export async function verifyDoc(src: string, out: string, lang: string): Promise<void> {
  const extractor = new WordExtractor();
  const lines = (s: string): string[] => s.split(/\r?\n/).filter((p) => p.trim() !== '');
  const a = await extractor.extract(src);
  const b = await extractor.extract(out);
  // filterUnicode: false keeps typographic quotes (an option @types/word-extractor does not declare)
  const opts = { filterUnicode: false, includeFooters: false };
  type Getter = (o: typeof opts) => string;
  const body = (d: typeof a): string[] => lines((d.getBody as Getter).call(d, opts));
  const headers = (d: typeof a): string[] => lines((d.getHeaders as Getter).call(d, opts));
  const sourceBody = body(a);
  expectSegments(sourceBody, body(b).slice(0, sourceBody.length), lang, 'doc body');
  expectSegments(headers(a), headers(b), lang, 'doc header');
  expect(sourceBody.length).toBeGreaterThan(3);
}

export async function verifyImage(src: string, out: string): Promise<void> {
  expect((await readFile(out)).equals(await readFile(src))).toBe(true);
}

/** The verification for an input extension (and output extension, for pdf -> docx). */
export function verifierFor(
  ext: string,
  outExt = ext,
): (src: string, out: string, lang: string) => Promise<void> {
  switch (ext) {
    case 'txt':
      return verifyTxt;
    case 'srt':
      return verifySrt;
    case 'htm':
    case 'html':
      return verifyHtml;
    case 'xlf':
    case 'xliff':
      return verifyXliff;
    case 'docx':
    case 'pptx':
    case 'xlsx':
      return (s, o, l) => verifyOoxml(s, o, l, ext);
    case 'pdf':
      return outExt === 'docx' ? verifyPdfToDocx : verifyPdf;
    case 'doc':
      return verifyDoc;
    default:
      return verifyImage;
  }
}
