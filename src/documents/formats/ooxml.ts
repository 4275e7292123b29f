// Office Open XML packages (docx, pptx, xlsx): the text-bearing parts are read paragraph by
// paragraph (a paragraph is one segment, its runs are its pieces, so a translation keeps run
// formatting); the writer splices the translated runs into those parts and copies every other part
// of the package with the same uncompressed content.
import { checkAborted, type ReadContext } from '../limits.js';
import { languageTag } from '../language-tag.js';
import { DocumentFormatError } from '../errors.js';
import type { Segment, SegmentRole } from '../segment.js';
import { readZipParts, rewriteZip, type ZipPackage } from './zip.js';
import { openedDocument, SegmentList, textsOut, type FormatReader } from './reader.js';
import type { TranslationOf } from '../document.js';
import {
  applySplices,
  assertWellFormed,
  attribute,
  decodeXml,
  escapeXml,
  localName,
  setAttribute,
  tokenize,
  type Splice,
} from './xml.js';

/** How text is found in one kind of part (all names are local names, any namespace prefix). */
export interface PartRules {
  /** Elements that make one segment (w:p, a:p, si, is ...). */
  paragraph: ReadonlySet<string>;
  /** Elements holding the text of one run (w:t, a:t, t). */
  text: ReadonlySet<string>;
  /** Elements whose text is never translated (phonetic runs ...). */
  skip: ReadonlySet<string>;
  /** Add xml:space="preserve" to a text element whose new text starts or ends with whitespace. */
  preserveSpace: boolean;
  /** How the part says which language its text is in: it is set to the target language. */
  language?: 'word' | 'drawing';
}

const DRAWING_RUN_PROPERTIES = new Set(['rPr', 'endParaRPr', 'defRPr']);

/** The tag with its language set to `tag` (Word's <w:lang w:val>, DrawingML's lang of run properties). */
function withLanguage(
  xml: string,
  name: string,
  language: PartRules['language'],
  tag: string,
): string | undefined {
  if (language === 'word' && name === 'lang' && attribute(xml, 'w:val') !== undefined)
    return setAttribute(xml, 'w:val', tag);
  if (language === 'drawing' && DRAWING_RUN_PROPERTIES.has(name) && attribute(xml, 'lang') !== undefined)
    return setAttribute(xml, 'lang', tag);
  return undefined;
}

/** A run's text element: its tag and the offsets of its content. */
interface Run {
  tagStart: number;
  tagEnd: number;
  start: number;
  end: number;
  text: string;
}

/** Decodes the content of a text element (entities and CDATA sections). */
function textContent(xml: string): string {
  return xml
    .split(/(<!\[CDATA\[[\s\S]*?\]\]>)/)
    .map((part) => (part.startsWith('<![CDATA[') ? part.slice(9, -3) : decodeXml(part)))
    .join('');
}

/** One text-bearing part as read: its XML, its paragraphs with text, the tags that name a language. */
export interface ReadPart {
  xml: string;
  paragraphs: Array<{ segment: Segment; runs: Run[] }>;
  languageTags: Array<{ start: number; end: number; name: string }>;
}

/** Reads the paragraphs of one XML part into `found`. */
export function readPart(
  xml: string,
  rules: PartRules,
  found: SegmentList,
  where: { part: string; role: SegmentRole; what: string },
  ctx: Pick<ReadContext, 'signal'>,
): ReadPart {
  assertWellFormed(xml, where.what);
  const part: ReadPart = { xml, paragraphs: [], languageTags: [] };
  const frames: Run[][] = [];
  let skipDepth = 0;
  let open: { tagStart: number; tagEnd: number } | undefined;
  let n = 0;
  const flush = (runs: Run[]): void => {
    n++;
    const segment = found.add(
      where.role,
      `${where.part} paragraph ${n}`,
      runs.map((r) => ({ text: r.text })),
    );
    if (!segment) return;
    if (part.paragraphs.length % 1000 === 999) checkAborted(ctx);
    part.paragraphs.push({ segment, runs });
  };
  for (const t of tokenize(xml, where.what)) {
    if (t.kind === 'open') {
      const name = localName(t.name);
      if (rules.language && withLanguage(xml.slice(t.start, t.end), name, rules.language, 'x') !== undefined)
        part.languageTags.push({ start: t.start, end: t.end, name });
      if (t.selfClosing) continue;
      if (rules.skip.has(name)) skipDepth++;
      else if (rules.paragraph.has(name)) frames.push([]);
      else if (rules.text.has(name) && frames.length > 0 && skipDepth === 0)
        open = { tagStart: t.start, tagEnd: t.end };
    } else if (t.kind === 'close') {
      const name = localName(t.name);
      if (open && rules.text.has(name)) {
        frames[frames.length - 1]?.push({
          ...open,
          start: open.tagEnd,
          end: t.start,
          text: textContent(xml.slice(open.tagEnd, t.start)),
        });
        open = undefined;
      } else if (rules.skip.has(name)) skipDepth = Math.max(0, skipDepth - 1);
      else if (rules.paragraph.has(name)) flush(frames.pop() ?? []);
    }
  }
  return part;
}

/** The part's XML with each paragraph's translation in place and its language set to `targetLang`. */
export function writePart(
  part: ReadPart,
  rules: PartRules,
  translationOf: TranslationOf,
  targetLang: string,
): string {
  const { xml } = part;
  const splices: Splice[] = [];
  const target = languageTag(targetLang);
  for (const t of part.languageTags) {
    const tag = withLanguage(xml.slice(t.start, t.end), t.name, rules.language, target);
    if (tag !== undefined) splices.push({ start: t.start, end: t.end, text: tag });
  }
  for (const { segment, runs } of part.paragraphs) {
    const out = textsOut(segment, segment.pieces, translationOf);
    runs.forEach((p, i) => {
      const text = out[i] as string;
      if (text === p.text) return;
      splices.push({ start: p.start, end: p.end, text: escapeXml(text) });
      const tag = xml.slice(p.tagStart, p.tagEnd);
      if (rules.preserveSpace && /^\s|\s$/.test(text) && attribute(tag, 'xml:space') !== 'preserve') {
        splices.push({ start: p.tagStart, end: p.tagEnd, text: setAttribute(tag, 'xml:space', 'preserve') });
      }
    });
  }
  return applySplices(xml, splices);
}

const set = (...names: string[]): ReadonlySet<string> => new Set(names);

const WORD: PartRules = {
  paragraph: set('p'),
  text: set('t'),
  skip: set(),
  preserveSpace: true,
  language: 'word',
};
const DRAWING: PartRules = {
  paragraph: set('p'),
  text: set('t'),
  skip: set(),
  preserveSpace: false,
  language: 'drawing',
};
/** Parts whose text is not translated but whose default language is the document's. */
const WORD_DEFAULTS: PartRules = { ...WORD, paragraph: set(), text: set() };
const DRAWING_DEFAULTS: PartRules = { ...DRAWING, paragraph: set(), text: set() };
const SHARED_STRINGS: PartRules = {
  paragraph: set('si'),
  text: set('t'),
  skip: set('rPh'),
  preserveSpace: true,
};
const INLINE_STRINGS: PartRules = {
  paragraph: set('is'),
  text: set('t'),
  skip: set('rPh'),
  preserveSpace: true,
};
const CELL_COMMENTS: PartRules = {
  paragraph: set('text'),
  text: set('t'),
  skip: set('rPh'),
  preserveSpace: true,
};

interface PackageKind {
  what: string;
  /** The part every package of this kind has. */
  mainPart: string;
  parts: Array<[RegExp, PartRules]>;
  /** The role of a part's paragraphs, by part name (first match; else text). */
  roles: Array<[RegExp, SegmentRole]>;
}

const KINDS: Record<'docx' | 'pptx' | 'xlsx', PackageKind> = {
  docx: {
    what: 'Word document (.docx)',
    mainPart: 'word/document.xml',
    parts: [
      [/^word\/(?:document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml$/, WORD],
      [/^word\/styles\.xml$/, WORD_DEFAULTS],
    ],
    roles: [
      [/^word\/header/, 'header'],
      [/^word\/footer/, 'footer'],
      [/^word\/(?:footnotes|endnotes)/, 'note'],
      [/^word\/comments/, 'comment'],
    ],
  },
  pptx: {
    what: 'PowerPoint presentation (.pptx)',
    mainPart: 'ppt/presentation.xml',
    parts: [
      [/^ppt\/(?:slides\/slide\d+|notesSlides\/notesSlide\d+|diagrams\/data\d+)\.xml$/, DRAWING],
      [
        /^ppt\/(?:presentation|slideMasters\/slideMaster\d+|slideLayouts\/slideLayout\d+)\.xml$/,
        DRAWING_DEFAULTS,
      ],
    ],
    roles: [[/^ppt\/notesSlides\//, 'speaker-notes']],
  },
  xlsx: {
    what: 'Excel workbook (.xlsx)',
    mainPart: 'xl/workbook.xml',
    parts: [
      [/^xl\/sharedStrings\.xml$/, SHARED_STRINGS],
      [/^xl\/worksheets\/sheet\d+\.xml$/, INLINE_STRINGS],
      [/^xl\/comments\d*\.xml$/, CELL_COMMENTS],
    ],
    roles: [
      [/^xl\/comments/, 'comment'],
      [/^xl\//, 'cell'],
    ],
  },
};

/**
 * The text of an XML part: parts are UTF-8 or UTF-16 (with a byte order mark); `bom` and
 * `encoding` say how to write it back the same way.
 */
export function decodePart(content: Buffer): { xml: string; bom: number; encoding: 'utf8' | 'utf16le' } {
  const utf16 = content[0] === 0xff && content[1] === 0xfe;
  const bom = utf16 ? 2 : content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : 0;
  const encoding = utf16 ? 'utf16le' : 'utf8';
  return { xml: content.subarray(bom).toString(encoding), bom, encoding };
}

export type PackageKindName = 'docx' | 'pptx' | 'xlsx';

/** Rules for a part of a package kind, or undefined when the part has no translatable text. */
export function partRules(kind: PackageKindName, name: string): PartRules | undefined {
  return KINDS[kind].parts.find(([re]) => re.test(name))?.[1];
}

function reader(kind: 'docx' | 'pptx' | 'xlsx'): FormatReader {
  const k = KINDS[kind];
  const spec: ZipPackage = {
    what: k.what,
    check(names) {
      if (!names.has('[Content_Types].xml') || !names.has(k.mainPart)) {
        throw new DocumentFormatError(
          `not a valid ${k.what}: the package has no ${names.has('[Content_Types].xml') ? k.mainPart : '[Content_Types].xml'}`,
        );
      }
    },
  };
  return async (path, ctx) => {
    const found = new SegmentList();
    const parts = new Map<
      string,
      { read: ReadPart; rules: PartRules; bom: Buffer; encoding: BufferEncoding }
    >();
    await readZipParts(
      path,
      ctx,
      spec,
      (name) => partRules(kind, name) !== undefined,
      (name, content) => {
        const rules = partRules(kind, name) as PartRules;
        const { xml, bom, encoding } = decodePart(content);
        const role = k.roles.find(([re]) => re.test(name))?.[1] ?? 'text';
        const read = readPart(xml, rules, found, { part: name, role, what: `${name} in the ${k.what}` }, ctx);
        parts.set(name, { read, rules, bom: Buffer.from(content.subarray(0, bom)), encoding });
      },
    );
    return openedDocument({
      format: kind,
      keepsLayout: true,
      outputFormats: [kind],
      segments: found.segments,
      async write(translationOf, out, opts) {
        const writeCtx = { ...ctx, ...(opts.signal ? { signal: opts.signal } : {}) };
        await rewriteZip(path, out.path, writeCtx, spec, (name) => {
          const part = parts.get(name);
          if (!part) return undefined;
          const xml = writePart(part.read, part.rules, translationOf, opts.targetLang);
          return Buffer.concat([part.bom, Buffer.from(xml, part.encoding)]);
        });
      },
    });
  };
}

export const readDocx = reader('docx');
export const readPptx = reader('pptx');
export const readXlsx = reader('xlsx');
