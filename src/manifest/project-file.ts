import { existsSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from './paths.js';

// Files a manifest refers to (style-list files, glossary CSV/TSV) are read under the rule source
// links follow: a link may point anywhere inside the project, never out of it (its lines would be
// printed by `plan` and sent to the service), and only a regular file is read — a FIFO or a device
// would block `validate` forever on its open.

/** The project a manifest belongs to: its git repository's top folder, or else its own folder. */
export function projectRoot(manifestDir: string): string {
  for (let dir = manifestDir; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return manifestDir;
  }
}

/**
 * The text of `file`, or why it cannot be read, in words that follow the file's name. `root`
 * undefined (the manifest itself, named by the person running locsync): anywhere, regular files only.
 */
export async function readProjectFile(
  file: string,
  root: string | undefined,
): Promise<{ text: string } | { problem: string }> {
  try {
    const [real, realRoot] = await Promise.all([realpath(file), root === undefined ? '' : realpath(root)]);
    if (root !== undefined && !isInside(realRoot, real))
      return {
        problem: `leads outside the project (${root}) to ${real}; files the manifest refers to are read only inside it (copy the file in)`,
      };
    const s = await stat(real);
    if (s.isDirectory()) return { problem: 'is a folder' };
    if (!s.isFile()) return { problem: 'is not a regular file (a FIFO, socket or device is never read)' };
    return { text: await readFile(real, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      problem:
        code === 'ENOENT'
          ? 'not found'
          : code === 'ELOOP'
            ? 'is a loop of links'
            : `cannot be read (${code})`,
    };
  }
}
