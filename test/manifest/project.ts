import { afterEach } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A temp folder with the given files (path → content); remove() deletes it. */
export async function tempProject(
  files: Record<string, string>,
): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'locsync-manifest-'));
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The smallest valid manifest body after `mappings:` (one mapping, one target). */
export const MINIMAL = `mappings:
  - name: docs
    source: docs
    output: out/{lang}/{path}
    targets:
      - lang: de
`;

/**
 * A `project(files)` for one test file: a temp folder per call (its path returned), each removed
 * after the test that made it.
 */
export function projectsOfEachTest(): (files: Record<string, string>) => Promise<string> {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((c) => c()));
  });
  return async (files) => {
    const p = await tempProject(files);
    cleanups.push(p.remove);
    return p.dir;
  };
}
