// Office Open XML packages (docx, pptx, xlsx): the text-bearing parts are translated paragraph by
// paragraph (a paragraph is one segment, its runs are its pieces, so run formatting is kept); every
// other part of the package is copied with the same uncompressed content.
import type { FormatContext, FormatHandler } from './context.js';
import { checkAborted, languageTag } from './context.js';
import { DocumentFormatError } from '../engine/types.js';
import { rewriteZip, type ZipRewrite } from './zip.js';
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

interface Piece {
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

/** Translates the text of one XML part; returns the new part. */
export function translatePart(xml: string, rules: PartRules, ctx: FormatContext, what: string): string {
  assertWellFormed(xml, what);
  const splices: Splice[] = [];
  const frames: Piece[][] = [];
  let skipDepth = 0;
  let open: { tagStart: number; tagEnd: number } | undefined;
  let paragraphs = 0;
  const flush = (pieces: Piece[]): void => {
    if (!pieces.some((p) => p.text.trim() !== '')) return;
    if (++paragraphs % 1000 === 0) checkAborted(ctx);
    const out = ctx.translator.translate(pieces.map((p) => p.text));
    pieces.forEach((p, i) => {
      const text = out[i] as string;
      if (text === p.text) return;
      splices.push({ start: p.start, end: p.end, text: escapeXml(text) });
      const tag = xml.slice(p.tagStart, p.tagEnd);
      if (rules.preserveSpace && /^\s|\s$/.test(text) && attribute(tag, 'xml:space') !== 'preserve') {
        splices.push({ start: p.tagStart, end: p.tagEnd, text: setAttribute(tag, 'xml:space', 'preserve') });
      }
    });
  };
  const target = languageTag(ctx.translator.targetLang);
  for (const t of tokenize(xml, what)) {
    if (t.kind === 'open') {
      const name = localName(t.name);
      if (rules.language) {
        const tag = withLanguage(xml.slice(t.start, t.end), name, rules.language, target);
        if (tag !== undefined) splices.push({ start: t.start, end: t.end, text: tag });
      }
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
}

const KINDS: Record<'docx' | 'pptx' | 'xlsx', PackageKind> = {
  docx: {
    what: 'Word document (.docx)',
    mainPart: 'word/document.xml',
    parts: [
      [/^word\/(?:document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml$/, WORD],
      [/^word\/styles\.xml$/, WORD_DEFAULTS],
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
  },
  xlsx: {
    what: 'Excel workbook (.xlsx)',
    mainPart: 'xl/workbook.xml',
    parts: [
      [/^xl\/sharedStrings\.xml$/, SHARED_STRINGS],
      [/^xl\/worksheets\/sheet\d+\.xml$/, INLINE_STRINGS],
      [/^xl\/comments\d*\.xml$/, CELL_COMMENTS],
    ],
  },
};

/** Rules for a part of a package kind, or undefined when the part has no translatable text. */
export function partRules(kind: 'docx' | 'pptx' | 'xlsx', name: string): PartRules | undefined {
  return KINDS[kind].parts.find(([re]) => re.test(name))?.[1];
}

function handler(kind: 'docx' | 'pptx' | 'xlsx'): FormatHandler {
  const k = KINDS[kind];
  return async (input, output, ctx) => {
    const spec: ZipRewrite = {
      what: k.what,
      check(names) {
        if (!names.has('[Content_Types].xml') || !names.has(k.mainPart)) {
          throw new DocumentFormatError(
            `not a valid ${k.what}: the package has no ${names.has('[Content_Types].xml') ? k.mainPart : '[Content_Types].xml'}`,
          );
        }
      },
      transformFor(name) {
        const rules = partRules(kind, name);
        if (!rules) return undefined;
        return (content) => {
          // parts are UTF-8 or UTF-16 (with a byte order mark); they are written back the same way
          const utf16 = content[0] === 0xff && content[1] === 0xfe;
          const bom = utf16 ? 2 : content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : 0;
          const encoding = utf16 ? 'utf16le' : 'utf8';
          const xml = content.subarray(bom).toString(encoding);
          const translated = translatePart(xml, rules, ctx, `${name} in the ${k.what}`);
          return Buffer.concat([content.subarray(0, bom), Buffer.from(translated, encoding)]);
        };
      },
    };
    await rewriteZip(input.path, output.path, ctx, spec);
  };
}

export const translateDocx = handler('docx');
export const translatePptx = handler('pptx');
export const translateXlsx = handler('xlsx');
