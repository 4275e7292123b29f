// The service's contract (its style rules and document translation specifications), field for field. Shared by the typed client
// (src/api), the local service (src/local-service) and the style reconciler (src/styles).
import type { FormatOptions } from '../documents/format-options.js';

/** Style rule list languages (style-rules spec 2.1). */
export const STYLE_LANGUAGES = ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh'] as const;
export type StyleLanguage = (typeof STYLE_LANGUAGES)[number];

/** Configured rule categories (style-rules spec 2.3). */
export const RULE_CATEGORIES = [
  'dates_and_times',
  'formatting',
  'numbers',
  'punctuation',
  'spelling_and_grammar',
  'style_and_tone',
  'vocabulary',
] as const;
export type RuleCategory = (typeof RULE_CATEGORIES)[number];

/** category -> rule name -> chosen option. */
export type ConfiguredRules = Partial<Record<RuleCategory, Record<string, string>>>;

export interface CustomInstruction {
  id: string;
  label: string;
  prompt: string;
  source_language?: string;
}

export type CustomInstructionInput = Omit<CustomInstruction, 'id'>;

export interface StyleRuleListSummary {
  style_id: string;
  name: string;
  creation_time: string;
  updated_time: string;
  language: StyleLanguage;
  version: number;
}

export interface StyleRuleList extends StyleRuleListSummary {
  configured_rules: ConfiguredRules;
  custom_instructions: CustomInstruction[];
}

export interface CreateStyleRuleListRequest {
  name: string;
  language: StyleLanguage;
  configured_rules?: ConfiguredRules;
  custom_instructions?: CustomInstructionInput[];
}

export interface PatchStyleRuleListRequest {
  name?: string;
  configured_rules?: ConfiguredRules;
}

export interface ListStyleRulesQuery {
  detailed?: boolean;
  page_size?: number;
  page?: number;
}

export interface ListStyleRulesResponse {
  style_rules: Array<StyleRuleListSummary | StyleRuleList>;
}

export const STYLE_LIMITS = {
  nameMax: 1024,
  labelMax: 100,
  promptMax: 300,
  instructionsMax: 200,
  pageSizeMin: 1,
  pageSizeMax: 25,
  pageSizeDefault: 10,
} as const;

/** POST /v2/translate (style-rules spec endpoint 10; response shape of the real service). */
/**
 * POST /v2/translate (style-rules spec endpoint 10; the rest as the real service's reference): up to
 * TEXT_REQUEST_LIMITS.texts texts, a body of at most TEXT_REQUEST_LIMITS.bytes. Billed by the
 * characters of `text`; `context` (text that shapes the translation but is not translated) is not.
 */
export interface TranslateTextRequest {
  text: string[];
  target_lang: string;
  source_lang?: string;
  style_id?: string;
  model_type?: string;
  formality?: Formality;
  glossary_id?: string;
  context?: string;
  /** xml: inline markup travels as tags and comes back in place. */
  tag_handling?: 'xml' | 'html';
  /** '0': the text is not split into sentences (a segment is one unit already). */
  split_sentences?: '0' | '1' | 'nonewlines';
  ignore_tags?: string[];
  show_billed_characters?: boolean;
}
export interface TranslateTextResponse {
  translations: Array<{ detected_source_language: string; text: string; billed_characters?: number }>;
}

/** The real service's limits of one text request (developers.deepl.com, "translating large volumes"). */
export const TEXT_REQUEST_LIMITS = { texts: 50, bytes: 128 * 1024 } as const;

// ---- Documents (document-translation spec) ----

// What each format is (which the service takes, which it bills at least the minimum, its output
// formats) is the format registry's: src/documents/format-registry.ts.

/** Characters the service bills at least for a document of a minimum-billed format (docx, pdf...). */
export const MINIMUM_BILLED_CHARACTERS = 50_000;

export const FORMALITIES = ['default', 'more', 'less', 'prefer_more', 'prefer_less'] as const;
export type Formality = (typeof FORMALITIES)[number];
/** Target languages on which formality more/less works (upper-case, as the spec writes them). */
export const FORMALITY_LANGUAGES = [
  'DE',
  'FR',
  'IT',
  'ES',
  'NL',
  'PL',
  'PT-BR',
  'PT-PT',
  'JA',
  'RU',
] as const;

export interface UploadDocumentRequest {
  target_lang: string;
  source_lang?: string;
  formality?: Formality;
  glossary_id?: string;
  output_format?: string;
  style_id?: string;
  filename?: string;
  /**
   * locsync's own, never sent: the job is translated through the segment path (method: segments),
   * its document read and written here and its segments sent to POST /v2/translate. `settings`: the
   * digest of what changes a segment's translation (part of every segment memory key); `read`: how
   * the document is read (a CSV file's columns, from its mapping).
   */
  segments?: { settings: string; read?: FormatOptions };
}

export interface UploadDocumentResponse {
  document_id: string;
  document_key: string;
}

export type DocumentState = 'queued' | 'translating' | 'done' | 'error';

export type DocumentStatus =
  | { document_id: string; status: 'queued' }
  | { document_id: string; status: 'translating'; seconds_remaining?: number }
  | { document_id: string; status: 'done'; billed_characters: number }
  | {
      document_id: string;
      status: 'error';
      message: string;
      /** The real service's name for `message`. */
      error_message?: string;
    };

/** Error body of failed calls (design.md). */
export interface ServiceErrorBody {
  message: string;
  code?: string;
}

/** Authorization scheme word (spec section 5). */
export const AUTH_SCHEME = 'Service-Auth-Key';

/**
 * GET /v2/usage: the characters the service counted in the current billing period (the real
 * service reports `start_time` and `end_time` of the period for a professional account).
 */
export interface UsageResponse {
  character_count?: number;
  character_limit?: number;
  start_time?: string;
  end_time?: string;
}
