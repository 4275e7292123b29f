import { z } from 'zod';
import { FORMALITIES, RULE_CATEGORIES, STYLE_LANGUAGES, STYLE_LIMITS } from '../api/types.js';

// The manifest's single source of truth. The JSON Schema in schema/pipeline.schema.json is generated
// from it (`npm run schema`); validation with file/line/column lives in ./load.ts.

/** Target languages the document service accepts (lower-case in the manifest; sent upper-case). */
export const TARGET_LANGUAGES = [
  'ar',
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'en-gb',
  'en-us',
  'es',
  'et',
  'fi',
  'fr',
  'he',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'lt',
  'lv',
  'nb',
  'nl',
  'pl',
  'pt',
  'pt-br',
  'pt-pt',
  'ro',
  'ru',
  'sk',
  'sl',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh',
  'zh-hans',
  'zh-hant',
] as const;
export const SOURCE_LANGUAGES = [
  'ar',
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'es',
  'et',
  'fi',
  'fr',
  'he',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'lt',
  'lv',
  'nb',
  'nl',
  'pl',
  'pt',
  'ro',
  'ru',
  'sk',
  'sl',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh',
] as const;

const seconds = z.number().positive();

export const customInstructionSchema = z.strictObject({
  label: z.string().min(1).max(STYLE_LIMITS.labelMax),
  prompt: z.string().min(1).max(STYLE_LIMITS.promptMax),
  source_language: z.string().optional(),
});

const ruleCategoryShape = Object.fromEntries(
  RULE_CATEGORIES.map((c) => [c, z.record(z.string(), z.string()).optional()]),
) as Record<(typeof RULE_CATEGORIES)[number], z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodString>>>;
export const configuredRulesSchema = z.strictObject(ruleCategoryShape);

export const DRIFT_POLICIES = ['fail', 'overwrite', 'adopt'] as const;

/** A style list as written inline in the manifest or alone in its own file. */
export const styleListBodySchema = z.strictObject({
  /** The list's name on the service (defaults to the manifest key). */
  name: z.string().min(1).max(STYLE_LIMITS.nameMax).optional(),
  language: z.enum(STYLE_LANGUAGES),
  drift: z.enum(DRIFT_POLICIES).default('fail'),
  configured_rules: configuredRulesSchema.default({}),
  custom_instructions: z.array(customInstructionSchema).max(STYLE_LIMITS.instructionsMax).default([]),
});

/** `style_lists.<key>`: inline, or `{ file: path }` (one list per file, path relative to the manifest). */
export const styleListEntrySchema = z.union([
  z.strictObject({ file: z.string().min(1) }),
  styleListBodySchema,
]);

export const targetSchema = z.strictObject({
  lang: z.enum(TARGET_LANGUAGES),
  /** Key of an entry of `style_lists`. */
  style: z.string().optional(),
  formality: z.enum(FORMALITIES).optional(),
  glossary_id: z.string().optional(),
  /** Output file extension (only pdf -> docx is a real conversion). */
  output_format: z.string().optional(),
  /** Overrides the mapping's output pattern for this target. */
  output: z.string().optional(),
});

export const mappingSchema = z.strictObject({
  name: z.string().min(1),
  /** Source folder, relative to the manifest. */
  source: z.string().min(1),
  include: z.array(z.string()).default(['**/*']),
  exclude: z.array(z.string()).default([]),
  source_lang: z.enum(SOURCE_LANGUAGES).optional(),
  /** Output path pattern relative to the manifest; placeholders: see OUTPUT_PLACEHOLDERS. */
  output: z.string().min(1),
  targets: z.array(targetSchema).min(1),
  on_source_delete: z.enum(['keep', 'delete']).optional(),
});

export const serviceSchema = z.strictObject({
  /** Base URL of the service; omitted: the embedded local service. */
  url: z.url().optional(),
  plan: z.enum(['pro', 'free']).default('pro'),
  /** Name of the environment variable holding the API key (never the key itself). */
  key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('LOCSYNC_API_KEY'),
  auth_scheme: z.string().min(1).default('Service-Auth-Key'),
  concurrency: z.number().int().min(1).max(64).default(4),
  requests_per_second: z.number().positive().max(1000).default(10),
  /** Maximum documents translated by the service and not yet downloaded. */
  max_undownloaded: z.number().int().min(1).default(20),
  timeouts: z
    .strictObject({ connect: seconds.default(10), response: seconds.default(60), idle: seconds.default(120) })
    .default({ connect: 10, response: 60, idle: 120 }),
  retry: z
    .strictObject({
      max_attempts: z.number().int().min(1).max(20).default(6),
      max_wait: seconds.default(300),
    })
    .default({ max_attempts: 6, max_wait: 300 }),
  /** Options of the embedded local service (used only when `url` is omitted). */
  local: z
    .strictObject({
      phrasebook: z.string().optional(),
      queue_seconds: z.number().min(0).default(0),
      translate_seconds: z.number().min(0).default(0.5),
    })
    .default({ queue_seconds: 0, translate_seconds: 0.5 }),
});

export const watchSchema = z.strictObject({
  /** Poll instead of native events (SMB/NFS shares deliver none). */
  poll: z.boolean().default(false),
  interval: seconds.default(5),
  /** A file must keep its size and mtime this long before it is uploaded. */
  stability: seconds.default(2),
  /** Full rescan period, in minutes (catches missed events). */
  rescan_minutes: z.number().positive().default(60),
  /** Deadline to stop on SIGINT/SIGTERM, in seconds. */
  shutdown: seconds.default(30),
  metrics: z
    .strictObject({ host: z.string().default('127.0.0.1'), port: z.number().int().min(0).max(65535) })
    .optional(),
});

export const manifestSchema = z.strictObject({
  version: z.literal(1).default(1),
  service: serviceSchema.default(serviceSchema.parse({})),
  /** SQLite state file, relative to the manifest. */
  state: z.string().default('.locsync/state.db'),
  on_source_delete: z.enum(['keep', 'delete']).default('keep'),
  /** Attempts per (file, target) across runs before a failing job is left alone. */
  max_attempts: z.number().int().min(1).default(3),
  watch: watchSchema.default(watchSchema.parse({})),
  style_lists: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/), styleListEntrySchema).default({}),
  mappings: z.array(mappingSchema).min(1),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ServiceConfig = z.infer<typeof serviceSchema>;
export type WatchConfig = z.infer<typeof watchSchema>;
export type Mapping = z.infer<typeof mappingSchema>;
export type Target = z.infer<typeof targetSchema>;
export type StyleListBody = z.infer<typeof styleListBodySchema>;
export type StyleListEntry = z.infer<typeof styleListEntrySchema>;

/** Placeholders of output path patterns. */
export const OUTPUT_PLACEHOLDERS = {
  lang: 'target language as written in the manifest (de, pt-br)',
  LANG: 'target language upper-case (DE, PT-BR)',
  path: 'path relative to the source folder, with the output extension (guides/intro.docx)',
  dir: 'folder relative to the source folder, "" at the top (guides)',
  name: 'file name with the output extension (intro.docx)',
  stem: 'file name without extension (intro)',
  ext: 'output extension without dot (docx; a doc source gives docx)',
  mapping: 'the mapping name',
} as const;
