import { z } from 'zod';
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
