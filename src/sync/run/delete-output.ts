import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * Delete an output file, then its folders up to (not including) the output root while they are
 * empty. Refuses anything outside `rootAbs`. Answers whether a file was deleted.
 */
export async function deleteOutput(fileAbs: string, rootAbs: string): Promise<boolean> {
  const rel = path.relative(rootAbs, fileAbs);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  try {
    await fsp.unlink(fileAbs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  let dir = path.dirname(fileAbs);
  while (dir !== rootAbs && dir.startsWith(rootAbs + path.sep)) {
    try {
      await fsp.rmdir(dir);
    } catch {
      break;
    }
    dir = path.dirname(dir);
  }
  return true;
}
