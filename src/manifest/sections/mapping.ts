import { z } from 'zod';
import { FORMALITIES } from '../../api/types.js';
import { SOURCE_LANGUAGES, TARGET_LANGUAGES } from './languages.js';
import { csvSchema } from './csv.js';
import { qaSchema } from './qa.js';

// `mappings` of the manifest: a source folder, its targets, where their outputs go and how they
// are translated and checked.

/**
 * How a target is translated (docs/segments.md): `document` uploads the whole document (billed whole,
 * at least 50,000 characters for Office files and pdf); `segments` reads it with the document layer,
 * sends only the segments the segment memory does not hold through the text endpoint, and writes the
 * output with the document layer (txt, html/htm, srt, xlf/xliff, docx, pptx, xlsx; not pdf, doc or
 * images).
 */
export const TRANSLATION_METHODS = ['document', 'segments'] as const;
export const methodSchema = z.enum(TRANSLATION_METHODS);

export const targetSchema = z.strictObject({
  lang: z.enum(TARGET_LANGUAGES).describe('Target language (lower-case).'),
  /** Key of an entry of `style_lists`. */
  style: z.string().optional().describe('Key of a style list in style_lists; its language must match lang.'),
  formality: z
    .enum(FORMALITIES)
    .optional()
    .describe(
      'more/less only for DE, FR, IT, ES, NL, PL, PT-BR, PT-PT, JA, RU; prefer_more/prefer_less work everywhere.',
    ),
  glossary_id: z
    .string()
    .optional()
    .describe("Glossary made elsewhere, by its id on the service; needs the mapping's source_lang."),
  glossary: z
    .string()
    .optional()
    .describe(
      "Key of a glossary in glossaries; needs the mapping's source_lang and a dictionary for its language pair.",
    ),
  /** Output file extension (only pdf -> docx is a real conversion). */
  output_format: z
    .string()
    .optional()
    .describe('Output format: only docx, which turns pdf sources into docx; other files keep their format.'),
  /** Overrides the mapping's output pattern for this target. */
  output: z.string().optional().describe("Output path pattern for this target (overrides the mapping's)."),
  method: methodSchema.optional().describe("How this target is translated (overrides the mapping's method)."),
});

export const mappingSchema = z.strictObject({
  name: z.string().min(1).describe('Unique name of the mapping ({mapping} in output patterns).'),
  /** Source folder, relative to the manifest. */
  source: z.string().min(1).describe('Source folder, relative to the manifest.'),
  allow_missing: z
    .boolean()
    .optional()
    .describe(
      'The source folder may be absent or empty (a removable share): then the mapping is left alone and the run does not fail. Without it a missing source folder fails sync and status, and validate names it as an error.',
    ),
  include: z.array(z.string()).default(['**/*']).describe('Globs of files to translate, relative to source.'),
  exclude: z.array(z.string()).default([]).describe('Globs of files to leave alone, relative to source.'),
  source_lang: z
    .enum(SOURCE_LANGUAGES)
    .optional()
    .describe('Source language; left out, the service detects it.'),
  /** Output path pattern relative to the manifest; placeholders: see OUTPUT_PLACEHOLDERS. */
  output: z
    .string()
    .min(1)
    .describe('Output path pattern, relative to the manifest, with placeholders such as {lang} and {path}.'),
  targets: z.array(targetSchema).min(1).describe('Target languages and their settings.'),
  on_source_delete: z
    .enum(['keep', 'delete'])
    .optional()
    .describe('Overrides the top-level on_source_delete for this mapping.'),
  links_outside_source: z
    .enum(['skip', 'follow'])
    .default('skip')
    .describe(
      'Symbolic links in the source that lead outside the source folder: skipped with a warning, or followed (translated and billed).',
    ),
  method: methodSchema
    .optional()
    .describe(
      'How the targets are translated: document (the whole document is uploaded and billed, the default) or segments (only the segments not in the segment memory are sent through the text endpoint, billed by their characters; txt, html, srt, xliff, docx, pptx, xlsx and the formats the document layer adds; see docs/segments.md).',
    ),
  qa: qaSchema
    .optional()
    .describe(
      'Output checks of this mapping (docs/qa.md): fail_on turns soft checks into failures, ignore turns them off.',
    ),
  billing: z
    .strictObject({
      cost_centre: z
        .string()
        .trim()
        .min(1)
        .describe(
          'Who pays for this mapping (a team, a budget line): `locsync report --by cost-centre` adds up what its documents and text requests billed under this name.',
        ),
    })
    .optional()
    .describe('Accounting of this mapping (docs/operations.md, "Per-team cost").'),
  csv: csvSchema.optional().describe("The columns of this mapping's CSV string files (docs/strings/csv.md)."),
  change_detection: z
    .enum(['content', 'bytes'])
    .default('content')
    .describe(
      'What makes a changed source be translated again: its content (a document saved again with no edit, new container or metadata, keeps its outputs; see docs/content-digest.md) or any change of its bytes.',
    ),
});

export type Mapping = z.infer<typeof mappingSchema>;
export type Target = z.infer<typeof targetSchema>;
export type TranslationMethod = (typeof TRANSLATION_METHODS)[number];
export type QaConfig = z.infer<typeof qaSchema>;

/** Whether any target of a mapping is translated segment by segment (its scan takes their formats). */
export function usesSegments(mapping: Pick<Mapping, 'method' | 'targets'>): boolean {
  return mapping.targets.some((t) => methodFor(mapping, t) === 'segments');
}

/** How a target is translated: its own method, else its mapping's, else `document`. */
export function methodFor(
  mapping: Pick<Mapping, 'method'>,
  target: Pick<Target, 'method'>,
): TranslationMethod {
  return target.method ?? mapping.method ?? 'document';
}

/** Placeholders of output path patterns. */
export const OUTPUT_PLACEHOLDERS = {
  lang: 'target language as written in the manifest (de, pt-br)',
  LANG: 'target language upper-case (DE, PT-BR)',
  lang_bcp47: 'target language as BCP 47 writes it: web JSON, Rails, iOS .lproj (de, pt-BR, zh-Hans)',
  lang_posix: 'target language with an underscore: gettext, Java, Flutter ARB (de, pt_BR, zh_Hans)',
  lang_android: 'target language as Android resource folders write it (de, pt-rBR, b+zh+Hans)',
  path: 'path relative to the source folder, with the output extension (guides/intro.docx)',
  dir: 'folder relative to the source folder, "" at the top (guides)',
  name: 'file name with the output extension (intro.docx)',
  stem: 'file name without extension (intro)',
  ext: 'output extension without dot (docx; a doc source gives docx)',
  mapping: 'the mapping name',
} as const;
