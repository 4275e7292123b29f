import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileChunks } from './file-chunks.js';
import { writeAll } from './write-all.js';

// The one way a finished file reaches its name: written to a part file beside it (same folder, so
// the rename is atomic), fsynced, renamed, then the folder fsynced. Nothing ever sees a half-written
// file under the final name; part files a killed process left are recognised by their suffix.

/** Suffix of every part file (scans ignore it; cleanup finds leftovers by it). */
export const PART_SUFFIX = '.locsync-part';

/** Longest file name most filesystems accept, in bytes. */
const NAME_MAX = 255;

/**
 * The start of every part file name of `dest`: `.<name>.`, or a digest of the name when the name
 * would not leave room for the tag and the suffix.
 */
function partPrefix(dest: string): string {
  const name = path.basename(dest);
  const plain = `.${name}.`;
  if (Buffer.byteLength(plain) + 32 + PART_SUFFIX.length <= NAME_MAX) return plain;
  return `.${createHash('sha256').update(name).digest('hex').slice(0, 32)}.`;
}

/** fsync a folder, so that a rename in it survives a power cut (some filesystems refuse: ignored). */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch {
    /* some filesystems do not fsync folders; the rename itself is done */
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/** The file on disk is not what was written to it (a filesystem that lost or cut bytes). */
export class WrittenFileMismatchError extends Error {
  readonly code = 'EIO';
  readonly syscall = 'write';
  constructor(
    readonly file: string,
    what: string,
  ) {
    super(`${file}: the file on disk is not what was written (${what}): nothing was put in place`);
  }
}

/** Chooses the name a finished file is renamed to, in its destination's folder. */
export type PlaceAt = (dest: string) => Promise<string>;

/** A part file beside its destination: write to `handle`, then commit() or discard(). */
export class PartFile {
  private committed = false;
  private closed = false;
  /** What went through write(): checked against the file on disk before the rename. */
  private written = 0;
  private readonly hash = createHash('sha256');
  private wroteThroughHandle = false;

  private constructor(
    readonly dest: string,
    readonly path: string,
    readonly handle: fsp.FileHandle,
  ) {}

  /**
   * Open the part file of `dest` named with `tag`. `exclusive`: fail if it exists (a fresh random tag
   * per download); otherwise a leftover of the same tag is overwritten (a copy killed half-way).
   */
  static async open(dest: string, tag: string, opts: { exclusive: boolean }): Promise<PartFile> {
    const p = path.join(path.dirname(dest), `${partPrefix(dest)}${tag}${PART_SUFFIX}`);
    return new PartFile(dest, p, await fsp.open(p, opts.exclusive ? 'wx' : 'w'));
  }

  /** Append every byte of `buf`, or fail (./write-all.ts); counted for the check before the rename. */
  async write(buf: Buffer): Promise<void> {
    this.wroteThroughHandle = true;
    await writeAll(this.handle, buf, this.path);
    this.written += buf.length;
    this.hash.update(buf);
  }

  /**
   * fsync, check that the file holds what was written (its size and sha256, read back), close,
   * rename onto the destination, fsync the folder. `placeAt`: asked for the name right before the
   * rename (a file beside the destination instead: ../sync/run/edited-output.ts).
   */
  async commit(placeAt?: PlaceAt): Promise<void> {
    await this.handle.sync();
    if (this.wroteThroughHandle) await verifyWritten(this.path, this.written, this.hash.digest('hex'));
    await this.close();
    const dest = placeAt ? await placeAt(this.dest) : this.dest;
    await fsp.rename(this.path, dest);
    this.committed = true;
    await fsyncDir(path.dirname(dest));
  }

  /** Remove the part file (a no-op after commit). */
  async discard(): Promise<void> {
    if (this.committed) return;
    await this.close().catch(() => undefined);
    await fsp.rm(this.path, { force: true });
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** The file copied is not the one expected (it changed since its hash was recorded). */
export class CopyMismatchError extends Error {
  constructor(readonly from: string) {
    super(`${from} changed since it was recorded`);
  }
}

/**
 * Copy `from` to `to` through a part file; answers the bytes written. `expectSha256`: the bytes
 * copied must have it, else nothing is put in place (CopyMismatchError).
 */
export async function copyFileAtomic(
  from: string,
  to: string,
  placeAt?: PlaceAt,
  expectSha256?: string,
): Promise<number> {
  await fsp.mkdir(path.dirname(to), { recursive: true });
  // A fixed tag per output: a copy killed half-way is overwritten by the next attempt.
  const part = await PartFile.open(to, 'copy', { exclusive: false });
  try {
    let bytes = 0;
    const hash = expectSha256 === undefined ? undefined : createHash('sha256');
    for await (const buf of fileChunks(from)) {
      bytes += buf.length;
      hash?.update(buf);
      await part.write(buf);
    }
    if (hash && hash.digest('hex') !== expectSha256) throw new CopyMismatchError(from);
    await part.commit(placeAt);
    return bytes;
  } finally {
    await part.discard();
  }
}

/** The file at `file` holds `size` bytes whose sha256 is `sha256`, else WrittenFileMismatchError. */
export async function verifyWritten(file: string, size: number, sha256: string): Promise<void> {
  const onDisk = (await fsp.stat(file)).size;
  if (onDisk !== size) throw new WrittenFileMismatchError(file, `${onDisk} bytes of ${size}`);
  const hash = createHash('sha256');
  for await (const chunk of fileChunks(file)) hash.update(chunk);
  if (hash.digest('hex') !== sha256) throw new WrittenFileMismatchError(file, 'other bytes');
}

/** Remove part files left beside `dest` by a killed download or copy. Answers their names. */
export async function removePartFiles(dest: string): Promise<string[]> {
  const dir = path.dirname(dest);
  const prefix = partPrefix(dest);
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
