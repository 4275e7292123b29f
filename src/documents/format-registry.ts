// What each format is, one record per extension: its reader and content digester, whether the
// document service takes it, which methods translate it, how it is billed, what its first bytes
// must be, whether it is bilingual or a string resource file. Pricing, pre-flight, the planner, QA,
// review, the segment path and the local service all ask here; adding a format is a record here
// and its reader (translate-toolkit's storage factory, style.md).
//
// Every scan and every price asks, so this module loads nothing: a reader, digester or content
// check is imported on its first use, and a plan that reads no document loads no parser.
import type { FormatOptions } from './format-options.js';
import type { DocumentFormat, LanguageParts, ServiceTerms } from './format-types.js';

export type {
  ContentCheck,
  Digester,
  DocumentFormat,
  LanguageParts,
  SegmentsRefusal,
  ServiceTerms,
} from './format-types.js';

/** A loader that imports its module once. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

type Reader = DocumentFormat['reader'];
type Traits = Partial<Omit<DocumentFormat, 'reader' | 'service'>>;

/** A format only the document layer reads: translated with method: segments only. */
function segmentsOnly(reader: Reader, traits: Traits = {}): DocumentFormat {
  return {
    reader,
    segments: true,
    minimumBilled: false,
    uncounted: false,
    bilingual: false,
    strings: false,
    ...traits,
  };
}

/** A format the document service takes (method: document); the segment path writes it back too. */
function document(reader: Reader, service: ServiceTerms, traits: Traits = {}): DocumentFormat {
  return { ...segmentsOnly(reader, traits), service };
}

/** A string resource file (docs/strings/): keyed values, translated with method: segments only. */
function stringFile(reader: Reader, traits: Traits = {}): DocumentFormat {
  return segmentsOnly(reader, { strings: true, ...traits });
}

const MB = 1024 * 1024;
const terms = (megabytes: number, contentType: string): ServiceTerms => ({
  maxBytes: megabytes * MB,
  contentType,
});

const ooxml = once(() => import('./formats/ooxml.js'));
const ooxmlDigest = once(() => import('./digest/ooxml.js'));

/** An Office Open XML package: a zip archive, billed at least the minimum. */
function office(kind: 'docx' | 'pptx' | 'xlsx', what: string, contentType: string): DocumentFormat {
  return document(async () => (await ooxml())[READ_OOXML[kind]], terms(30, contentType), {
    minimumBilled: true,
    signature: { kind: 'zip', what },
    digester: async () => {
      const { digestOoxml } = await ooxmlDigest();
      return (path) => digestOoxml(path, kind);
    },
  });
}
const READ_OOXML = { docx: 'readDocx', pptx: 'readPptx', xlsx: 'readXlsx' } as const;

const html = document(
  once(async () => (await import('./formats/html.js')).readHtml),
  terms(5, 'text/html; charset=utf-8'),
  {
    digester: once(async () => (await import('./digest/html.js')).digestHtml),
  },
);
const xliff = document(
  once(async () => (await import('./formats/xliff.js')).readXliff),
  terms(10, 'application/xliff+xml'),
  {
    digester: once(async () => (await import('./digest/xliff.js')).digestXliff),
    bilingual: true,
  },
);
const image = (kind: 'png' | 'jpeg', what: string): DocumentFormat =>
  document(
    once(async () => (await import('./formats/image.js')).readImage),
    terms(10, `image/${kind}`),
    {
      segments: 'no segments',
      uncounted: true,
      signature: { kind, what },
    },
  );
const markdown = segmentsOnly(
  once(async () => (await import('./formats/markdown.js')).readMarkdown),
  {
    digester: once(async () => (await import('./digest/markdown.js')).digestMarkdown),
  },
);
const json = stringFile(once(async () => (await import('./formats/strings/json.js')).readJson));
const yaml = stringFile(once(async () => (await import('./formats/strings/yaml.js')).readYaml));
const po = once(async () => (await import('./formats/strings/po.js')).readPo);

/** Every format, by lower-case extension without the dot. */
const FORMATS: Readonly<Record<string, DocumentFormat>> = {
  docx: office(
    'docx',
    'a Word document (a zip archive)',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ),
  doc: document(
    once(async () => (await import('./formats/doc.js')).readDoc),
    terms(30, 'application/msword'),
    {
      segments: 'not written back',
      minimumBilled: true,
      signature: { kind: 'ole', what: 'a Word 97-2003 document (an OLE compound file)' },
      output: 'docx',
    },
  ),
  pptx: office(
    'pptx',
    'a PowerPoint presentation (a zip archive)',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ),
  xlsx: office(
    'xlsx',
    'an Excel workbook (a zip archive)',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ),
  pdf: document(
    once(async () => (await import('./formats/pdf.js')).readPdf),
    terms(30, 'application/pdf'),
    {
      segments: 'not written back',
      minimumBilled: true,
      signature: { kind: 'pdf', what: "a PDF (starting with '%PDF-')" },
      digester: once(async () => (await import('./digest/pdf.js')).digestPdf),
      convertsTo: ['docx'],
    },
  ),
  htm: html,
  html,
  txt: document(
    once(async () => (await import('./formats/txt.js')).readTxt),
    terms(1, 'text/plain; charset=utf-8'),
    {
      digester: once(async () => (await import('./digest/plain-text.js')).digestTxt),
    },
  ),
  xlf: xliff,
  xliff,
  srt: document(
    once(async () => (await import('./formats/srt.js')).readSrt),
    terms(5, 'application/x-subrip'),
    {
      digester: once(async () => (await import('./digest/plain-text.js')).digestSrt),
    },
  ),
  // WebVTT subtitles: the service has no document type for them, so the segment path only.
  vtt: segmentsOnly(
    once(async () => (await import('./formats/webvtt.js')).readVtt),
    {
      digester: once(async () => (await import('./digest/webvtt.js')).digestVtt),
    },
  ),
  jpeg: image('jpeg', 'a JPEG image'),
  jpg: image('jpeg', 'a JPEG image'),
  png: image('png', 'a PNG image'),
  md: markdown,
  markdown,
  // MDX: Markdown with JSX, read by the Markdown reader with remark-mdx (docs/mdx.md).
  mdx: segmentsOnly(
    once(async () => (await import('./formats/markdown.js')).readMarkdown),
    {
      digester: once(async () => (await import('./digest/markdown.js')).digestMdx),
    },
  ),
  json,
  arb: json,
  // JSON with comments and trailing commas, and JSON5: the same reader (docs/strings/json5.md).
  jsonc: json,
  json5: json,
  yaml,
  yml: yaml,
  po: stringFile(po, { bilingual: true }),
  pot: stringFile(po, { bilingual: true, output: 'po' }),
  // Android string resources; any other .xml file (an RSS feed, a layout) is listed, never read.
  xml: stringFile(
    once(async () => (await import('./formats/strings/android.js')).readAndroidStrings),
    {
      contentCheck: once(async () => (await import('./formats/xml-root.js')).notStringResources),
    },
  ),
  strings: stringFile(
    once(async () => (await import('./formats/strings/apple-strings.js')).readAppleStrings),
  ),
  stringsdict: stringFile(
    once(async () => (await import('./formats/strings/stringsdict.js')).readStringsdict),
  ),
  // Apple String Catalogs: every language of a table in one file (docs/strings/xcstrings.md).
  xcstrings: stringFile(
    once(async () => (await import('./formats/strings/xcstrings.js')).readXcstrings),
    {
      digester: once(async () => (await import('./digest/xcstrings.js')).digestXcstrings),
      inPlace: once(async () => {
        const [{ digestXcstringsLanguage }, { takeXcstringsLanguage }] = await Promise.all([
          import('./digest/xcstrings.js'),
          import('./formats/strings/xcstrings.js'),
        ]);
        return { digest: digestXcstringsLanguage, take: takeXcstringsLanguage };
      }),
    },
  ),
  properties: stringFile(once(async () => (await import('./formats/strings/properties.js')).readProperties)),
  toml: stringFile(once(async () => (await import('./formats/strings/toml.js')).readToml)),
  // Laravel's lang/en/*.php arrays (docs/strings/laravel.md); lang/en.json is read as JSON.
  php: stringFile(once(async () => (await import('./formats/strings/laravel.js')).readLaravel)),
  // CSV with a column per language, its columns named by the mapping (docs/strings/csv.md).
  csv: stringFile(
    once(async () => (await import('./formats/strings/csv.js')).readCsv),
    { options: 'csv' },
  ),
  resx: stringFile(once(async () => (await import('./formats/strings/resx.js')).readResx)),
};

const BY_EXTENSION: ReadonlyMap<string, DocumentFormat> = new Map(Object.entries(FORMATS));

/** The extension of a file name, lower case, without the dot: what formatOf takes. */
export function extensionOf(file: string): string {
  const name = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The record of an extension (any case, no dot), or undefined when locsync does not read it. */
export function formatOf(ext: string): DocumentFormat | undefined {
  // Asked for every file of every scan: the lower-case copy only for a name that is not found as is.
  return BY_EXTENSION.get(ext) ?? BY_EXTENSION.get(ext.toLowerCase());
}

/** Extensions (lower case) the document layer reads, in the registry's order. */
export function supportedFormats(): string[] {
  return Object.keys(FORMATS);
}

/** Extensions the document service takes (POST /v2/document), in the registry's order. */
export const SERVICE_FORMATS: readonly string[] = Object.keys(FORMATS).filter((e) => FORMATS[e]!.service);

/** Whether the document service takes files of this extension. */
export function isServiceFormat(ext: string): boolean {
  return formatOf(ext)?.service !== undefined;
}

/** Extensions of string resource files: documents only on the segment path (docs/strings/). */
export const STRING_FORMATS: readonly string[] = Object.keys(FORMATS).filter((e) => FORMATS[e]!.strings);

export function isStringFormat(ext: string): boolean {
  return formatOf(ext)?.strings === true;
}

/** Formats that carry a translation beside their source text (read with `side: 'target'`). */
export function isBilingual(ext: string): boolean {
  return formatOf(ext)?.bilingual === true;
}

/** Whether a file of this extension holds every language, its targets written into it. */
export function isInPlaceFormat(ext: string): boolean {
  return formatOf(ext)?.inPlace !== undefined;
}

/** Extensions whose one file holds every language (in the registry's order). */
export const IN_PLACE_FORMATS: readonly string[] = Object.keys(FORMATS).filter((e) => FORMATS[e]!.inPlace);

/** What an in-place format (isInPlaceFormat) does with a language's part of its files. */
export async function languageParts(ext: string): Promise<LanguageParts> {
  const parts = formatOf(ext)?.inPlace;
  if (!parts) throw new Error(`a .${ext} file holds one language: it has no language parts`);
  return parts();
}

/** The digest of `lang`'s part of the file at `path`, of an in-place format (isInPlaceFormat). */
export async function languagePartDigest(path: string, ext: string, lang: string): Promise<string> {
  return (await languageParts(ext)).digest(path, lang);
}

/** Which of the mapping's format settings files of this extension are read with, if any. */
export function formatOptionsKey(ext: string): keyof FormatOptions | undefined {
  return formatOf(ext)?.options;
}

/** Whether the service bills a document of this extension at least MINIMUM_BILLED_CHARACTERS. */
export function isMinimumBilled(ext: string): boolean {
  return formatOf(ext)?.minimumBilled === true;
}

/** Whether the service translates this extension without counting characters (images): billed 0. */
export function isUncounted(ext: string): boolean {
  return formatOf(ext)?.uncounted === true;
}

/** Output of an input extension when no output_format is given (doc becomes docx, pot po). */
export function defaultOutputExtension(ext: string): string {
  const e = ext.toLowerCase();
  return formatOf(e)?.output ?? e;
}

/** Whether `outputFormat` may be asked for a file of `inputExt`: its own, or a conversion it has. */
export function isPermittedOutputFormat(inputExt: string, outputFormat: string): boolean {
  const o = outputFormat.toLowerCase();
  return o === defaultOutputExtension(inputExt) || (formatOf(inputExt)?.convertsTo ?? []).includes(o);
}

/** Output formats some format converts into on request (output_format: docx for pdf). */
export function conversionFormats(): string[] {
  return [...new Set(Object.values(FORMATS).flatMap((f) => f.convertsTo ?? []))];
}

/**
 * Why the file at `path` (named `name` for people) is not a document of `ext` as far as its first
 * bytes tell (undefined: it may be; its reader checks the rest): an .xml file that is not an Android
 * string resource file is listed rather than read as one. Only such formats load their check.
 */
export async function contentRefusal(path: string, ext: string, name: string): Promise<string | undefined> {
  const check = formatOf(ext)?.contentCheck;
  return check ? (await check())(path, name) : undefined;
}

/**
 * Whether a file of this extension is prose stored as text (plain text, Markdown, HTML,
 * subtitles): its bytes can be read for words without a parser. Binary formats have a signature;
 * string files and bilingual files hold keys or a second language beside the source's words.
 */
export function isProseText(ext: string): boolean {
  const f = formatOf(ext);
  return f !== undefined && f.signature === undefined && !f.strings && !f.bilingual;
}

/**
 * A document the service does not take but the segment path writes back (Markdown, MDX, WebVTT):
 * under method: document it is translated segment by segment. String files are not among them:
 * a JSON or YAML file in a folder of documents may be configuration, so they wait for a mapping
 * that says method: segments (docs/strings/).
 */
export function documentBySegments(ext: string): boolean {
  const f = formatOf(ext);
  return f !== undefined && f.service === undefined && f.segments === true && !f.strings;
}
