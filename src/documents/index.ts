// The document layer: reads every supported document format into translatable segments and writes
// a translation back into the same document (Okapi's extract / merge, style.md). What it offers:
//
//   openDocument(path, { format, limits?, signal? }) -> OpenedDocument
//     .segments()        AsyncIterable<Segment>, in document order. A segment is a paragraph, line,
//                        cue, cell, attribute value or XLIFF unit with text to translate:
//                        { id, role, where, pieces }. `pieces` are its formatted runs (a
//                        translation gives one text per piece, so bold stays bold); code pieces
//                        (an html <br>, an XLIFF <ph/>) are inline markup kept as it is.
//                        `role` says what it is (text, heading, cell, header, note, attribute...),
//                        `where` where, for a person ("word/document.xml paragraph 4", "page 2").
//     .write(translationOf, { path, format }, { targetLang })
//                        writes the document with each segment's translation (undefined: the
//                        source text); every byte that is not translated text stays as in the
//                        source for txt, srt, html/htm, xlf/xliff, md/markdown, docx, pptx, xlsx
//                        (`keepsLayout`).
//                        doc and pdf are read-only formats: their writer builds a new docx (or pdf)
//                        from the text. Images have no segments and are copied.
//     .keepsLayout, .outputFormats, .format
//   countCharacters(doc)  the characters a document is billed for before any minimum (code points of
//                         its segments' text pieces): the local service's count, pricing's estimate.
//   segmentText, segmentCharacters, taggedText / fromTaggedText (a segment as one string with its
//   pieces as <g>/<x/> tags, for a text translation with tag handling, and back).
//   String resource files (json, arb, yaml/yml, po/pot, Android xml, iOS strings/stringsdict,
//   properties; formats/strings/, docs/strings/): segments are keyed values (role 'string', where
//   "key app.title"); their documents are StringDocuments (values() by key, write(..., { keep })).
//   wordingInSourceShape: a person's wording of a string value as the memory keeps it (an ICU
//   message's plural branches the target language added left out).
//   protectPlaceholders / placeholdersOf / comparePlaceholders: placeholders and markup of UI strings
//   as code pieces, and the check a translated value must pass (placeholders.ts).
//   languageInStyle(code, 'bcp47' | 'posix' | 'android'): pt-br as pt-BR, pt_BR, pt-rBR.
//   contentRefusal(path, format, name): why a file is not what its extension says, from its first
//   bytes (an .xml file that is not Android string resources), before anything is read or planned.
//   formatOf(ext): what a format is (format-registry.ts: reader, digester, service, methods,
//   billing, signature, bilingual, string file), and what is asked of it most (isBilingual,
//   isStringFormat, supportedFormats()). Callers that must not load the readers (a plan, a price)
//   import format-registry.ts itself.
//   DocumentFormatError (a document that is not what its name says: the message is for a person),
//   ReadLimits / DEFAULT_LIMITS (bounds against zip bombs and hostile files).
//
// Every reader reads the whole document when it is opened (a hostile document fails there, before
// anything is written). Nothing here knows the service, the state or the manifest.
import type { OpenedDocument } from './document.js';
import { segmentCharacters } from './segment.js';

export { openDocument } from './formats/dispatch.js';
export {
  contentRefusal,
  formatOf,
  isBilingual,
  isStringFormat,
  STRING_FORMATS,
  supportedFormats,
  type DocumentFormat,
} from './format-registry.js';
export type { OpenedDocument, ReadOptions, TranslationOf, WriteOptions, WriteTarget } from './document.js';
export type { CsvOptions, FormatOptions } from './format-options.js';
export type { Piece, Segment, SegmentRole } from './segment.js';
export { segmentCharacters, segmentText } from './segment.js';
export { fromTaggedText, piecesOfTaggedText, taggedStructureProblem, taggedText } from './tagged.js';
export { DocumentFormatError } from './errors.js';
export {
  comparePlaceholders,
  describePlaceholderProblems,
  placeholdersOf,
  protectPlaceholders,
  type PlaceholderComparison,
} from './placeholders.js';
export { languageInStyle, type LanguageStyle } from './language-tag.js';
export {
  isStringDocument,
  PlaceholderCheckError,
  type StringDocument,
  type StringWriteOptions,
} from './formats/strings/keyed.js';
export { wordingInSourceShape, type OutputValue } from './formats/strings/reviewed-wording.js';
export { checkAborted, DEFAULT_LIMITS, type ReadLimits } from './limits.js';

/** Characters a document is billed for before any minimum: the sum over its segments. */
export async function countCharacters(doc: OpenedDocument): Promise<number> {
  let n = 0;
  for await (const s of doc.segments()) n += segmentCharacters(s);
  return n;
}
