import { registerSecret, scrub } from '../log/secrets.js';

// Errors stored before a document key the service echoes was redacted where it enters (the client's
// status call) may still hold one in the state's error column, shown by status, the status page and
// the report. The migration marked SCRUB_STORED_ERRORS brings a state past them once: every stored
// error goes through the project's scrubber, with the keys the state still records registered (a
// failed job's key is no longer recorded: the scrubber knows a key by its "document_key" label).

/** Marks the migration after which both backends scrub the stored errors (in its transaction). */
export const SCRUB_STORED_ERRORS = '/* scrub stored errors: src/state/scrub-errors.ts */';

export interface StoredError {
  id: number;
  error: string;
  document_key: string | null;
}

/** The errors that change once scrubbed, with their new text. */
export function scrubbedErrors(rows: StoredError[]): Array<{ id: number; error: string }> {
  for (const r of rows) registerSecret(r.document_key);
  return rows.flatMap((r) => {
    const error = scrub(r.error);
    return error === r.error ? [] : [{ id: r.id, error }];
  });
}
