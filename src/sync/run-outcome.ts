import { AuthError, QuotaExceededError } from '../api/errors.js';
import type { RunStopReason } from '../state/types.js';

// Why a run ended early, from the error that ended it: what the runs table records and what
// `status`, /healthz and the metrics say an operator should do about it.

/** Errors are told apart by name where their module is not loaded by every command. */
const REASON_BY_NAME: Record<string, RunStopReason> = {
  DriftError: 'drift',
  GlossaryDriftError: 'drift',
  LockedError: 'lock',
  ConfigError: 'config',
  ManifestError: 'config',
};

export function stopReasonOf(err: unknown): RunStopReason {
  if (err instanceof AuthError) return 'auth';
  if (err instanceof QuotaExceededError) return 'quota';
  const name = (err as { name?: unknown } | undefined)?.name;
  return (typeof name === 'string' && REASON_BY_NAME[name]) || 'internal';
}
