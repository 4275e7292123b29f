// The shape of a format's record in the registry (./format-registry.ts): what the planner, the
// segment path, QA and the local service may ask of a format.
import type { ContentKind } from './content-kinds.js';
import type { FormatOptions } from './format-options.js';
import type { ContentDigest } from './digest/types.js';
import type { FormatReader } from './formats/reader.js';

/** Makes the content digest of the file at `path` from its reader's parse (docs/content-digest.md). */
export type Digester = (path: string) => Promise<ContentDigest>;

/** Why the file at `path` (named `name` for people) is not this format, from its first bytes. */
export type ContentCheck = (path: string, name: string) => Promise<string | undefined>;

/** What a format whose one file holds every language does with one language's part of a file. */
export interface LanguageParts {
  /** The digest of `lang`'s part of the file at `path` (hex). */
  digest(path: string, lang: string): Promise<string>;
  /** The text `into` with `lang`'s part taken from the text `from` (every other part kept). */
  take(into: string, from: string, lang: string): string;
}

/** Why method: segments cannot translate a format. */
export type SegmentsRefusal = 'not written back' | 'no segments';

/** How the document service takes a format (POST /v2/document). */
export interface ServiceTerms {
  /** Its upload size limit on the real service's professional plan, bytes. */
  readonly maxBytes: number;
  /** The media type of its translation when downloaded. */
  readonly contentType: string;
}

export interface DocumentFormat {
  /** Reads a file of the format into segments (the module loads on first use). */
  readonly reader: () => Promise<FormatReader>;
  /** Its content digest; none: its bytes decide whether it changed. */
  readonly digester?: () => Promise<Digester>;
  /** Told apart from other files of the same extension by its first bytes before it is read. */
  readonly contentCheck?: () => Promise<ContentCheck>;
  /** The document service takes it, on these terms: method: document translates it. */
  readonly service?: ServiceTerms;
  /** method: segments translates it (true), or why not. */
  readonly segments: true | SegmentsRefusal;
  /** The service bills a document at least MINIMUM_BILLED_CHARACTERS (api/types.ts). */
  readonly minimumBilled: boolean;
  /** The service translates it without counting characters (images): billed 0. */
  readonly uncounted: boolean;
  /** What a file of the format starts with; a file that does not is not uploaded (pre-flight). */
  readonly signature?: { kind: ContentKind; what: string };
  /** It carries a translation beside its source text (read with side: 'target'). */
  readonly bilingual: boolean;
  /** A string resource file: keyed values (docs/strings/). */
  readonly strings: boolean;
  /** The extension of its translation when no output_format is given (doc → docx, pot → po). */
  readonly output?: string;
  /** Other formats the service converts it into on request (output_format: pdf → docx). */
  readonly convertsTo?: readonly string[];
  /** The mapping's settings its files are read with (FormatOptions): a CSV file's columns. */
  readonly options?: keyof FormatOptions;
  /**
   * One file holds every language (.xcstrings): its targets may be written into the source file
   * itself, each a part of it whose digest tells whether a person edited it (docs/strings/xcstrings.md).
   */
  readonly inPlace?: () => Promise<LanguageParts>;
}
