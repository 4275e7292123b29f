import fs from 'node:fs/promises';
import path from 'node:path';

// Outputs that failed a hard check are kept, not delivered and not thrown away (they were paid
// for, and a person may want to see what the service returned): in `quarantine/` beside the state,
// under the output's own path, so the previous output (if any) stays where it is.

/** The quarantine folder of a state file (beside it, as the spool is). */
export function quarantineDirOf(statePath: string): string {
  return path.join(path.dirname(statePath), 'quarantine');
}

/**
 * Moves `file` to `<dir>/<outputRel>` (a copy kept there before is replaced) and returns where it
 * went. Across file systems it is copied, then removed.
 */
export async function quarantineFile(file: string, dir: string, outputRel: string): Promise<string> {
  const dest = path.join(dir, ...outputRel.split('/').filter((p) => p !== '' && p !== '..'));
  await fs.mkdir(path.dirname(dest), { recursive: true });
  try {
    await fs.rename(file, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fs.copyFile(file, dest);
    await fs.rm(file, { force: true });
  }
  return dest;
}
