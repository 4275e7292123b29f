import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

// Outputs whose wording a person gave after their delivery (`locsync xliff import`, docs/xliff.md):
// the memory holds it as reviewed wording, and the next plain `sync` writes these outputs again
// from the memory (nothing sent) although their sources did not change. Each is noted with the done
// job that delivered it when the wording came in: it waits while that job is still its latest, so a
// delivery made since (by any run) settles it without this file being written again.

/** One output waiting for its imported wording. */
export interface ImportedWording {
  mapping: string;
  output: string;
  /** The output's latest done job when the wording was imported. */
  job_id: number;
}

const fileOf = (stateFolder: string) => path.join(stateFolder, 'imported-wording.json');

/** The outputs noted, by output path (none when the file is missing or unreadable). */
export function readImportedWording(stateFolder: string): Map<string, ImportedWording> {
  try {
    const list = JSON.parse(fs.readFileSync(fileOf(stateFolder), 'utf8')) as ImportedWording[];
    return new Map(list.map((w) => [w.output, w]));
  } catch {
    return new Map();
  }
}

/**
 * Notes outputs that have wording to write; `stillWaiting` keeps those noted before whose delivery
 * has not happened yet (the rest are dropped).
 */
export async function noteImportedWording(
  stateFolder: string,
  noted: readonly ImportedWording[],
  stillWaiting: (w: ImportedWording) => Promise<boolean>,
): Promise<void> {
  const all = new Map<string, ImportedWording>();
  for (const w of readImportedWording(stateFolder).values()) if (await stillWaiting(w)) all.set(w.output, w);
  for (const w of noted) all.set(w.output, w);
  await fsp.mkdir(stateFolder, { recursive: true });
  const file = fileOf(stateFolder);
  await fsp.writeFile(`${file}.tmp`, JSON.stringify([...all.values()], null, 1));
  await fsp.rename(`${file}.tmp`, file);
}
