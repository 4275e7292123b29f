import { z } from 'zod';
import { isPostgresUrl, searchPathOf, urlWithSchema } from '../../state/postgres/url.js';
import { envVarName } from './values.js';

// `state_backups` and `postgres` of the manifest: the state's backups (SQLite) and the options of a
// PostgreSQL state.

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
  password_env: envVarName
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

export type StateBackups = z.infer<typeof stateBackupsSchema>;
export type PostgresConfig = z.infer<typeof postgresSchema>;

/** A PostgreSQL schema name locsync may create and name unquoted in a search_path. */
const schemaName = z
  .string()
  .regex(
    /^[a-z_][a-z0-9_]{0,62}$/,
    'a schema name: lower-case letters, digits and _, not starting with a digit',
  );

/**
 * `state:` as written: a SQLite file or a PostgreSQL URL, or a PostgreSQL URL with the schema of
 * its tables beside it (`{ url, schema }`). Read as the one URL that names the schema in its
 * search_path, the form every reader of the state already knows.
 */
export const stateSchema = z
  .union([
    z.string(),
    z.strictObject({
      url: z.string().describe('The PostgreSQL URL (postgres://user@host:5432/database), without password.'),
      schema: schemaName
        .optional()
        .describe(
          "The schema of this pipeline's tables (made on first use); default: the URL's search_path, else the database's default.",
        ),
    }),
  ])
  .default('.locsync/state.db')
  .superRefine((value, ctx) => {
    if (typeof value === 'string' || value.schema === undefined) return;
    if (!isPostgresUrl(value.url))
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: `state.schema is for a PostgreSQL state; '${value.url}' is not a postgres:// URL (a SQLite file is written as state: ${value.url})`,
      });
    const named = searchPathOf(value.url);
    if (named !== undefined && named !== value.schema)
      ctx.addIssue({
        code: 'custom',
        path: ['schema'],
        message: `state.schema '${value.schema}' differs from the URL's search_path '${named}'; keep one of them`,
      });
  })
  .transform((value) =>
    typeof value === 'string'
      ? value
      : value.schema === undefined
        ? value.url
        : urlWithSchema(value.url, value.schema),
  );
