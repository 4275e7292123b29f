import path from 'node:path';
import { runHardChecks, type HardCheckFailure } from './hard-checks.js';
import { quarantineFile } from './quarantine.js';

// The gate between a download and its output folder (docs/qa.md): the downloaded file is checked
// before it is renamed into place; one that fails a hard check goes to the quarantine instead.

/** A downloaded output failed a hard check: it is in `quarantined`, not in the output folder. */
export class QaFailedError extends Error {
  constructor(
    readonly failure: HardCheckFailure,
    readonly quarantined: string,
  ) {
    super(`output check failed (${failure.check}): ${failure.reason}; kept in ${quarantined}`);
    this.name = 'QaFailedError';
  }
}

export interface GateTarget {
  /** The source file (absolute); undefined: unknown, only the output's own checks run. */
  sourceAbs: string | undefined;
  /** The output's path relative to the manifest folder ('/' separators). */
  outputRel: string;
  quarantineDir: string;
}

function formatOf(file: string): string {
  return path.extname(file).slice(1).toLowerCase();
}

/**
 * Checks the file at `candidate` (a part file or a spooled download) as the output of `t`; throws
 * QaFailedError, after moving it to the quarantine, when it fails.
 */
export async function gateOutput(candidate: string, t: GateTarget): Promise<void> {
  const output = { path: candidate, format: formatOf(t.outputRel) };
  const failure = await runHardChecks(
    t.sourceAbs !== undefined ? { path: t.sourceAbs, format: formatOf(t.sourceAbs) } : undefined,
    output,
  );
  if (!failure) return;
  throw new QaFailedError(failure, await quarantineFile(candidate, t.quarantineDir, t.outputRel));
}
