import type { ConfiguredRules, CustomInstruction, Formality } from '../../api/types.js';
import type { GlossaryTerms } from '../glossary-entries.js';
import type { ReadLimits } from '../../documents/index.js';

// Contract between the local service's API layer (src/local-service) and its translation engine
// (src/local-service/engine, over the document layer src/documents).

/** What a style list contributes to a translation. */
export interface EngineStyle {
  configured_rules: ConfiguredRules;
  custom_instructions: CustomInstruction[];
}

export interface TranslateOptions {
  /** Lower-case language codes as given by the client (e.g. "en", "pt-br"); source may be absent. */
  sourceLang?: string;
  targetLang: string;
  formality?: Formality;
  style?: EngineStyle;
  /** Glossary entries (source term -> target term) of the pair translated. */
  glossary?: GlossaryTerms;
  /** Text translation with markup: elements named in ignoreTags (xml and html) and, for html, elements with translate="no" are kept as they are. */
  tagHandling?: 'xml' | 'html';
  ignoreTags?: string[];
}

export interface TextResult {
  texts: string[];
  /** Lower-case source language: the given one, else a detected one. */
  detectedSourceLang: string;
  /** Source characters of the translated segments. */
  billedCharacters: number;
}

export interface DocumentInput {
  /** The uploaded file on disk (never read whole into memory when avoidable). */
  path: string;
  /** Lower-case input extension from the file name (docx, txt, ...). */
  ext: string;
  filename: string;
}

export interface DocumentOutput {
  /** Where to write the translated document. */
  path: string;
  /** Lower-case output extension (doc -> docx, pdf -> docx when asked). */
  ext: string;
}

export interface DocumentResult {
  /** Billed characters before the 50,000 minimum (the API layer applies the minimum). */
  characters: number;
  /** Lower-case language of the document's text, when no source language was given. */
  detectedSourceLang?: string;
}

/** Thrown for input the engine cannot translate (corrupt, mislabelled, bomb): the job ends in `error`. */
export { DocumentFormatError } from '../../documents/index.js';

export interface Engine {
  translateTexts(texts: string[], opts: TranslateOptions): TextResult;
  /** Lower-case language of a text (for requests without source_lang); engines without it: English. */
  detectLanguage?(text: string): Promise<string>;
  translateDocument(
    input: DocumentInput,
    output: DocumentOutput,
    opts: TranslateOptions,
    signal?: AbortSignal,
  ): Promise<DocumentResult>;
}

export interface EngineOptions {
  /** YAML or TSV phrasebook: exact source segment -> translation per target language. */
  phrasebookPath?: string;
  /** Bounds against hostile documents (zip bombs); defaults in src/documents/limits.ts. */
  limits?: Partial<EngineLimits>;
  /** Load the language detector at start (a long-running server) instead of on first need. */
  preloadDetection?: boolean;
}

/** Bounds against hostile documents (the document layer's read limits). */
export type EngineLimits = ReadLimits;
