import { z } from 'zod';
import { billingSchema, budgetSchema } from './sections/billing.js';
import { gitSchema } from './sections/git.js';
import { glossarySchema } from './sections/glossary.js';
import { mappingSchema } from './sections/mapping.js';
import { notifySchema } from './sections/notify.js';
import { serviceSchema } from './sections/service.js';
import { postgresSchema, stateBackupsSchema, stateSchema } from './sections/state.js';
import { styleListEntrySchema } from './sections/style-list.js';
import { watchSchema } from './sections/watch.js';

// The manifest's single source of truth: the whole manifest, made of its sections (./sections/, one
// module a section). The JSON Schema in schema/pipeline.schema.json is generated from it (`npm run
// schema`); validation with file/line/column lives in ./load.ts.

/** A key of style_lists or glossaries (how targets refer to the entry). */
const entryKey = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/);

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
      "The pipeline's name, recorded in its state: a state (a SQLite file, or a PostgreSQL schema) holds one pipeline, and a manifest of another name on it is refused. Default: the name of the manifest's folder. Pipelines sharing a PostgreSQL database each have a schema of their own (`state: { url: ..., schema: NAME }`; docs/postgres.md).",
    ),
  reuse: z
    .enum(['within_pipeline', 'across_pipelines'])
    .default('within_pipeline')
    .describe(
      "Where an identical translation (same content, same target and settings) may be copied from instead of uploading. within_pipeline (default): only this pipeline's own outputs. across_pipelines: with a PostgreSQL state, also the outputs of other pipelines on the same database that say across_pipelines too, when the copy's file is unchanged since it was translated, and the segments of their segment memories (docs/postgres.md, docs/memory.md).",
    ),
  service: serviceSchema
    .default(serviceSchema.parse({}))
    .describe('The translation service and how to call it.'),
  /** SQLite state file, relative to the manifest; or a PostgreSQL URL (several workers). */
  state: stateSchema.describe(
    'SQLite state file, relative to the manifest, on a local disk; or a PostgreSQL URL (postgres://user@host:5432/db?sslmode=require) shared by several workers, without password (PGPASSWORD or postgres.password_env); or { url: <PostgreSQL URL>, schema: <name> } for a pipeline with a schema of its own.',
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
  git: gitSchema
    .optional()
    .describe('Deliver as a git commit of exactly the outputs a run wrote or removed (optional).'),
  style_lists: z
    .record(entryKey, styleListEntrySchema)
    .default({})
    .describe('Style lists by key: inline, or { file: path } for a list kept in its own file.'),
  glossaries: z
    .record(entryKey, glossarySchema)
    .default({})
    .describe('Glossaries by key: entries per language pair, inline or in CSV/TSV files kept in git.'),
  mappings: z.array(mappingSchema).min(1).describe('Source folders and where their translations go.'),
});

export type Manifest = z.infer<typeof manifestSchema>;
