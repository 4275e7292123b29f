import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

// Writing outputs: never a partial file under an output's name. Copies go to a temp file beside the
// output (same folder, so the rename is atomic), are fsynced, then renamed. Partial files of a
// process that was killed are recognised by their suffix and removed.

/** Suffix of partial files (the client's downloads use it too). */
export const PART_SUFFIX = '.locsync-part';

async function fsyncDir(dir: string): Promise<void> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch {
    /* some filesystems do not fsync folders */
  } finally {
    await fh?.close();
  }
}

/** Copy `from` to `to` atomically: temp file beside `to`, fsync, rename, fsync of the folder. */
export async function copyFileAtomic(from: string, to: string): Promise<number> {
  const dir = path.dirname(to);
  await fsp.mkdir(dir, { recursive: true });
  // A fixed name per output: a copy killed half-way is overwritten by the next attempt.
  const tmp = path.join(dir, `.${path.basename(to)}.copy${PART_SUFFIX}`);
  try {
    await fsp.copyFile(from, tmp);
    const fh = await fsp.open(tmp, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, to);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(dir);
  return (await fsp.stat(to)).size;
}

/** Remove partial files left beside `output` by a killed download or copy. Returns their names. */
export async function removePartialFiles(output: string): Promise<string[]> {
  const dir = path.dirname(output);
  const prefix = `.${path.basename(output)}.`;
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const partial = names.filter((n) => n.startsWith(prefix) && n.endsWith(PART_SUFFIX));
  await Promise.all(partial.map((n) => fsp.rm(path.join(dir, n), { force: true })));
  return partial;
}

/** mtime in ms of a file, or undefined when it does not exist. */
export function mtimeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

export function exists(file: string): boolean {
  return fs.existsSync(file);
}

/**
 * Delete an output file, then its folders up to (not including) the output root while they are
 * empty. Refuses anything outside `rootAbs`.
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
