import { z } from 'zod';
import { FORMALITIES, RULE_CATEGORIES, STYLE_LANGUAGES, STYLE_LIMITS } from '../api/types.js';
import { isCurrencyCode } from '../util/currency.js';
import { DEFAULT_FAIL_ON, SOFT_CHECKS } from '../qa/checks.js';

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
  label: z
    .string()
    .min(1)
    .max(STYLE_LIMITS.labelMax)
    .describe('Short label; instructions are matched by label, so it must be unique in its list.'),
  prompt: z.string().min(1).max(STYLE_LIMITS.promptMax).describe('The instruction text.'),
  source_language: z
    .string()
    .optional()
    .describe('Source language the instruction applies to (lower-case, e.g. en).'),
});

const ruleCategoryShape = Object.fromEntries(
  RULE_CATEGORIES.map((c) => [
    c,
    z
      .record(z.string(), z.string())
      .optional()
      .describe(`Rules of the ${c} category: rule name → chosen option.`),
  ]),
) as Record<(typeof RULE_CATEGORIES)[number], z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodString>>>;
export const configuredRulesSchema = z.strictObject(ruleCategoryShape);

export const DRIFT_POLICIES = ['fail', 'overwrite', 'adopt'] as const;

/** A style list as written inline in the manifest or alone in its own file. */
export const styleListBodySchema = z.strictObject({
  /** The list's name on the service (defaults to the manifest key). */
  name: z
    .string()
    .min(1)
    .max(STYLE_LIMITS.nameMax)
    .optional()
    .describe("The list's name on the service (default: its key in style_lists)."),
  language: z
    .enum(STYLE_LANGUAGES)
    .describe('Language the rules apply to; targets using the list must have it.'),
  drift: z
    .enum(DRIFT_POLICIES)
    .default('fail')
    .describe(
      'When the list was changed on the service since locsync last applied it: fail (stop and show what changed), overwrite (make it match this file), adopt (write the service state back into this file).',
    ),
  configured_rules: configuredRulesSchema
    .default({})
    .describe('Predefined rules by category: category → rule name → option.'),
  custom_instructions: z
    .array(customInstructionSchema)
    .max(STYLE_LIMITS.instructionsMax)
    .default([])
    .describe(`Free-text instructions, at most ${STYLE_LIMITS.instructionsMax} per list.`),
});

/** `style_lists.<key>`: inline, or `{ file: path }` (one list per file, path relative to the manifest). */
export const styleListEntrySchema = z.union([
  z.strictObject({
    file: z
      .string()
      .min(1)
      .describe(
        "YAML file holding the list (one list per file), relative to the manifest; a regular file inside the project (the git repository, or the manifest's folder), also through links.",
      ),
  }),
  styleListBodySchema,
]);

/** "en-de": source and target language of one glossary dictionary (base languages only). */
export const GLOSSARY_PAIR_PATTERN = /^([a-z]{2,3})-([a-z]{2,3})$/;
const glossaryPair = z
  .string()
  .regex(GLOSSARY_PAIR_PATTERN, 'a language pair is written source-target, e.g. en-de');

/** `glossaries.<key>`: terminology kept in git, reconciled with the service like style lists. */
export const glossarySchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe("The glossary's name on the service (default: its key in glossaries)."),
  drift: z
    .enum(DRIFT_POLICIES)
    .default('fail')
    .describe(
      "When the glossary's entries were changed on the service since locsync last applied them: fail (stop and show what changed), overwrite (make the service match), adopt (write the service's entries into the files or the manifest).",
    ),
  entries: z
    .record(glossaryPair, z.record(z.string(), z.string()))
    .default({})
    .describe('Entries written in the manifest, per language pair (en-de): source term → target term.'),
  files: z
    .record(glossaryPair, z.string().min(1))
    .default({})
    .describe(
      "Entries kept in files, per language pair (en-de): a .csv (source,target) or .tsv (source<TAB>target) file, relative to the manifest; a regular file inside the project (the git repository, or the manifest's folder), also through links.",
    ),
});

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

/** `qa:` of a mapping: which soft output checks fail an output, which are not run (docs/qa.md). */
export const qaSchema = z.strictObject({
  fail_on: z
    .array(z.enum(SOFT_CHECKS))
    .optional()
    .describe(
      `Soft checks that fail an output (not delivered, kept in the quarantine, like a hard check) instead of flagging it. Default: [${DEFAULT_FAIL_ON.join(', ')}]. Checks: ${SOFT_CHECKS.join(', ')}.`,
    ),
  ignore: z
    .array(z.enum(SOFT_CHECKS))
    .default([])
    .describe('Soft checks not run for this mapping (a check in both lists is an error).'),
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
  change_detection: z
    .enum(['content', 'bytes'])
    .default('content')
    .describe(
      'What makes a changed source be translated again: its content (a document saved again with no edit, new container or metadata, keeps its outputs; see docs/content-digest.md) or any change of its bytes.',
    ),
});

/** An http:// or https:// URL: the service's base URL, a webhook (also when read from url_env). */
export const httpUrlSchema = z.url({ protocol: /^https?$/ });

export const serviceSchema = z.strictObject({
  /** Base URL of the service; omitted: the embedded local service. */
  url: httpUrlSchema
    .optional()
    .describe('Base URL of the service (http:// or https://); left out, the embedded local service is used.'),
  plan: z
    .enum(['pro', 'free'])
    .default('pro')
    .describe('Plan of the account (the free plan has no style lists).'),
  /** Name of the environment variable holding the API key (never the key itself). */
  key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('LOCSYNC_API_KEY')
    .describe('Name of the environment variable holding the API key (never the key itself).'),
  auth_scheme: z
    .string()
    .min(1)
    .default('Service-Auth-Key')
    .describe('Scheme word of the Authorization header.'),
  concurrency: z.number().int().min(1).max(64).default(4).describe('Documents in flight at once.'),
  requests_per_second: z
    .number()
    .positive()
    .max(1000)
    .default(10)
    .describe('Requests per second to the service, all calls together.'),
  /** Maximum documents translated by the service and not yet downloaded. */
  max_undownloaded: z
    .number()
    .int()
    .min(1)
    .default(20)
    .describe('Maximum documents translated by the service and not yet downloaded.'),
  timeouts: z
    .strictObject({
      connect: seconds.default(10).describe('Seconds to connect.'),
      response: seconds.default(60).describe('Seconds to the first byte of a response.'),
      idle: seconds.default(120).describe('Seconds without data while a body streams.'),
    })
    .default({ connect: 10, response: 60, idle: 120 })
    .describe('Timeouts of each request, in seconds.'),
  retry: z
    .strictObject({
      max_attempts: z.number().int().min(1).max(20).default(6).describe('Attempts per request.'),
      max_wait: seconds.default(300).describe('Seconds to keep retrying one request.'),
    })
    .default({ max_attempts: 6, max_wait: 300 })
    .describe('Retries of failed requests (only where repeating them is safe).'),
  /** An upload whose answer was lost after the document was sent: uploaded again in the same run. */
  retry_unanswered_uploads: z
    .boolean()
    .default(true)
    .describe(
      'An upload whose answer was lost after the document was sent (the service may have accepted and billed it) is uploaded again later in the same run (after a pause of 5 s, behind the uploads already waiting): possibly billed twice, listed by the summary, status and report. false: it is reported as failed (maybe-accepted) and the next run uploads it, for a person to decide first.',
    ),
  /** Options of the embedded local service (used only when `url` is omitted). */
  local: z
    .strictObject({
      phrasebook: z
        .string()
        .optional()
        .describe('Phrasebook YAML of exact translations, relative to the manifest.'),
      queue_seconds: z.number().min(0).default(0).describe('Seconds a document waits in the queue.'),
      translate_seconds: z.number().min(0).default(0.5).describe('Seconds a document takes to translate.'),
    })
    .default({ queue_seconds: 0, translate_seconds: 0.5 })
    .describe('Options of the embedded local service (only when url is left out).'),
});

export const watchSchema = z.strictObject({
  /** Poll instead of native events (SMB/NFS shares deliver none). */
  poll: z.boolean().default(false).describe('Poll instead of native events (SMB/NFS shares deliver none).'),
  interval: seconds.default(5).describe('Polling interval, seconds.'),
  /** A file must keep its size and mtime this long before it is uploaded. */
  stability: seconds
    .default(2)
    .describe('Seconds a file must keep its size and mtime before it is uploaded.'),
  /** Full rescan period, in minutes (catches missed events). */
  rescan_minutes: z
    .number()
    .positive()
    .default(60)
    .describe('Full rescan period in minutes (catches missed events).'),
  /** Deadline to stop on SIGINT/SIGTERM, in seconds. */
  shutdown: seconds.default(30).describe('Seconds to finish or record work in progress on SIGINT/SIGTERM.'),
  metrics: z
    .strictObject({
      host: z.string().default('127.0.0.1').describe('Address to listen on.'),
      port: z.number().int().min(0).max(65535).describe('Port (0: any free port).'),
    })
    .optional()
    .describe('Serve /healthz and Prometheus /metrics while watching.'),
});

/** What a notification can be about (notify.webhook.events). */
export const NOTIFY_EVENTS = [
  'run-failed',
  'run-interrupted',
  'budget-reached',
  'manifest-rejected',
  'drift',
  'source-missing',
  'qa-failed',
] as const;

export const notifySchema = z.strictObject({
  webhook: z
    .strictObject({
      url: httpUrlSchema.optional().describe('URL to POST a JSON message to (kept out of logs). Or url_env.'),
      url_env: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
        .optional()
        .describe('Environment variable holding the URL, for URLs that carry a token.'),
      events: z
        .array(z.enum(NOTIFY_EVENTS))
        .min(1)
        .default([...NOTIFY_EVENTS])
        .describe('What to notify about (default: all).'),
    })
    .refine((w) => (w.url === undefined) !== (w.url_env === undefined), {
      message: 'give the webhook either url or url_env (one of them)',
    })
    .describe(
      'POST a JSON message on failed or interrupted runs, budget reached, rejected manifest edits, drift.',
    ),
});

export const billingSchema = z.strictObject({
  price_per_million: z
    .number()
    .nonnegative()
    .describe("Price of one million billed characters (your plan's rate), e.g. 25."),
  currency: z
    .string()
    .refine(isCurrencyCode, { message: 'expected an ISO 4217 currency code such as EUR, USD or JPY' })
    .describe('ISO 4217 currency code of the price (EUR, USD, JPY ...).'),
});

const characterCap = z.number().int().min(0);
export const budgetSchema = z.strictObject({
  per_run: characterCap
    .optional()
    .describe(
      'Characters one sync may bill. A run whose plan is over it uploads nothing (exit code "budget reached"); a run whose bills outgrow the estimate stops uploading when the next upload would go over it. `sync --max-billed N` replaces it for one run. `watch` does not apply it (it has no end): use per_month.',
    ),
  per_month: characterCap
    .optional()
    .describe(
      "Characters a calendar month (UTC) may bill, counted from the state's ledger of billed characters. A run that would go over it uploads nothing; a run (sync, or a watch session) stops uploading when the next upload would go over it.",
    ),
});

export const stateBackupsSchema = z.strictObject({
  keep: z
    .number()
    .int()
    .min(0)
    .default(3)
    .describe('Automatic backups of the state kept beside it (0: none).'),
  interval_hours: z
    .number()
    .positive()
    .default(24)
    .describe('A sync takes a new backup when the newest one is older than this.'),
});

export const postgresSchema = z.strictObject({
  /** Name of the environment variable holding the database password (never the password itself). */
  password_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional()
    .describe(
      'Name of the environment variable holding the database password (default: PGPASSWORD); never the password itself.',
    ),
  /** Seconds a worker holds a unit of work without a heartbeat before another worker takes it over. */
  lease_seconds: z
    .number()
    .min(5)
    .max(3600)
    .default(30)
    .describe(
      "Seconds a worker's claim on a document lasts without a heartbeat; after that another worker takes its jobs over.",
    ),
  /** Folder on this machine for the spool and the embedded service's jobs, relative to the manifest. */
  local_dir: z
    .string()
    .default('.locsync')
    .describe(
      "Folder on this machine's local disk for the download spool and the embedded service's jobs, relative to the manifest.",
    ),
});

export const manifestSchema = z.strictObject({
  version: z.literal(1).default(1).describe('Manifest format version.'),
  pipeline: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/,
      'letters, digits, _ . - (at most 63), starting with a letter or digit',
    )
    .optional()
    .describe(
      "The pipeline's name, recorded in its state: a state (a SQLite file, or a PostgreSQL schema) holds one pipeline, and a manifest of another name on it is refused. Default: the name of the manifest's folder. Pipelines sharing a PostgreSQL database each have a schema of their own (`?options=-c%20search_path%3DNAME` in the URL; docs/postgres.md).",
    ),
  reuse: z
    .enum(['within_pipeline', 'across_pipelines'])
    .default('within_pipeline')
    .describe(
      "Where an identical translation (same content, same target and settings) may be copied from instead of uploading. within_pipeline (default): only this pipeline's own outputs. across_pipelines: with a PostgreSQL state, also the outputs of other pipelines on the same database that say across_pipelines too, when the copy's file is unchanged since it was translated (docs/postgres.md).",
    ),
  service: serviceSchema
    .default(serviceSchema.parse({}))
    .describe('The translation service and how to call it.'),
  /** SQLite state file, relative to the manifest; or a PostgreSQL URL (several workers). */
  state: z
    .string()
    .default('.locsync/state.db')
    .describe(
      'SQLite state file, relative to the manifest, on a local disk; or a PostgreSQL URL (postgres://user@host:5432/db?sslmode=require) shared by several workers, without password (PGPASSWORD or postgres.password_env).',
    ),
  postgres: postgresSchema
    .optional()
    .describe('Options of a PostgreSQL state (only when state is a postgres:// URL).'),
  state_backups: stateBackupsSchema
    .default(stateBackupsSchema.parse({}))
    .describe(
      'Automatic online backups of a SQLite state file, kept beside it as `<state>.backup-<time>` (mode 0600: they hold document keys).',
    ),
  billing: billingSchema
    .optional()
    .describe('Your rate: turns billed characters into money in plan, sync, status and report.'),
  budget: budgetSchema
    .optional()
    .describe(
      'Caps on billed characters: a run that would exceed one uploads nothing, and stops uploading when its bills reach one.',
    ),
  on_source_delete: z
    .enum(['keep', 'delete'])
    .default('keep')
    .describe('What happens to the outputs of a deleted source file.'),
  /** Attempts per (file, target) across runs before a failing job is left alone. */
  max_attempts: z
    .number()
    .int()
    .min(1)
    .default(3)
    .describe('Attempts per file and target, across runs, before a failing document is left alone.'),
  watch: watchSchema.default(watchSchema.parse({})).describe('Settings of locsync watch.'),
  notify: notifySchema.optional().describe('Notifications to people or chat channels (optional).'),
  style_lists: z
    .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/), styleListEntrySchema)
    .default({})
    .describe('Style lists by key: inline, or { file: path } for a list kept in its own file.'),
  glossaries: z
    .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/), glossarySchema)
    .default({})
    .describe('Glossaries by key: entries per language pair, inline or in CSV/TSV files kept in git.'),
  mappings: z.array(mappingSchema).min(1).describe('Source folders and where their translations go.'),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ServiceConfig = z.infer<typeof serviceSchema>;
export type WatchConfig = z.infer<typeof watchSchema>;
export type NotifyConfig = z.infer<typeof notifySchema>;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
export type PostgresConfig = z.infer<typeof postgresSchema>;
export type Mapping = z.infer<typeof mappingSchema>;
export type Target = z.infer<typeof targetSchema>;
export type TranslationMethod = (typeof TRANSLATION_METHODS)[number];

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
export type StyleListBody = z.infer<typeof styleListBodySchema>;
export type StyleListEntry = z.infer<typeof styleListEntrySchema>;
export type Budget = z.infer<typeof budgetSchema>;
export type StateBackups = z.infer<typeof stateBackupsSchema>;
export type GlossaryBody = z.infer<typeof glossarySchema>;
export type QaConfig = z.infer<typeof qaSchema>;

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
