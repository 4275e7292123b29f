// One reader per format, picked by the file's extension. Each format's module (and its libraries:
// parse5, saxes, yauzl, pdf.js, pdf-lib, word-extractor) loads on first use, so that counting the
// characters of plain text does not pay for PDF support.
import { stat } from 'node:fs/promises';
import type { OpenedDocument, ReadOptions } from '../document.js';
import { DocumentFormatError } from '../errors.js';
import { DEFAULT_LIMITS } from '../limits.js';
import type { FormatReader } from './reader.js';

/** A reader whose module loads on first use. */
function lazy(load: () => Promise<FormatReader>): FormatReader {
  let reader: Promise<FormatReader> | undefined;
  return async (path, ctx) => (await (reader ??= load()))(path, ctx);
}

const html = lazy(async () => (await import('./html.js')).readHtml);
const xliff = lazy(async () => (await import('./xliff.js')).readXliff);
const image = lazy(async () => (await import('./image.js')).readImage);
// String resource files (docs/strings/): only on the segment path.
const json = lazy(async () => (await import('./strings/json.js')).readJson);
const yaml = lazy(async () => (await import('./strings/yaml.js')).readYaml);
const po = lazy(async () => (await import('./strings/po.js')).readPo);
const android = lazy(async () => (await import('./strings/android.js')).readAndroidStrings);
// Markdown (docs/markdown.md): only on the segment path.
const markdown = lazy(async () => (await import('./markdown.js')).readMarkdown);

const READERS: Record<string, FormatReader> = {
  txt: lazy(async () => (await import('./txt.js')).readTxt),
  htm: html,
  html,
  srt: lazy(async () => (await import('./srt.js')).readSrt),
  doc: lazy(async () => (await import('./doc.js')).readDoc),
  docx: lazy(async () => (await import('./ooxml.js')).readDocx),
  pdf: lazy(async () => (await import('./pdf.js')).readPdf),
  pptx: lazy(async () => (await import('./ooxml.js')).readPptx),
  xlsx: lazy(async () => (await import('./ooxml.js')).readXlsx),
  xlf: xliff,
  xliff,
  md: markdown,
  markdown,
  png: image,
  jpg: image,
  jpeg: image,
  json,
  arb: json,
  yaml,
  yml: yaml,
  po,
  pot: po,
  xml: android,
  strings: lazy(async () => (await import('./strings/apple-strings.js')).readAppleStrings),
  stringsdict: lazy(async () => (await import('./strings/stringsdict.js')).readStringsdict),
  properties: lazy(async () => (await import('./strings/properties.js')).readProperties),
};

/** Formats (lower-case extensions) the document layer reads. */
export function supportedFormats(): string[] {
  return Object.keys(READERS);
}

/** Reads the document at `path` as `opts.format`; DocumentFormatError when it is not one. */
export async function openDocument(path: string, opts: ReadOptions): Promise<OpenedDocument> {
  const format = opts.format.toLowerCase();
  const reader = READERS[format];
  if (!reader) throw new DocumentFormatError(`.${format} documents are not supported`);
  const info = await stat(path);
  if (info.size === 0)
    throw new DocumentFormatError(`the file is empty: an empty .${format} is not a valid document`);
  return reader(path, {
    format,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.side ? { side: opts.side } : {}),
  });
}

/**
 * Why the file at `path` (named `name` for people) is not a document of `format` as far as its first
 * bytes tell (undefined: it may be; its reader checks the rest): an .xml file that is not an Android
 * string resource file is listed rather than read as one.
 */
export async function contentRefusal(
  path: string,
  format: string,
  name: string,
): Promise<string | undefined> {
  if (format.toLowerCase() !== 'xml') return undefined;
  return (await import('./xml-root.js')).notStringResources(path, name);
}

/** Formats that carry a translation beside their source text (read with `side: 'target'`). */
export function isBilingual(format: string): boolean {
  return format === 'xlf' || format === 'xliff' || format === 'po';
}
