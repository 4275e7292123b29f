import fs, { createReadStream } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir } from './part-file.js';
import { writeAll } from './write-all.js';

// The spool: every downloaded translation is received here first, under the state folder, named by
// its document id (fsynced, then recorded on its job with its sha256), and only then checked and
// written to its output; the file goes once the output is recorded. A download may be fetched only
// once: a worker killed or a disk full between the download and the output would otherwise lose
// the bytes, and the document would be paid for again. Whoever resumes the job delivers it from
// here, without asking the service (../sync/run/spooled-download.ts).

/** The spool folder beside a state file. */
export function spoolDirOf(statePath: string): string {
  return path.join(path.dirname(statePath), 'spool');
}

export function spooledPath(spoolDir: string, documentId: string): string {
  return path.join(spoolDir, encodeURIComponent(documentId));
}

/** A download that could not be put in place, kept in the spool instead (the cause says why). */
export class SpooledDownloadError extends Error {
  constructor(
    readonly spooledAt: string,
    readonly bytes: number,
    cause: Error,
  ) {
    super(`${cause.message}; the translation is kept in the spool (${spooledAt}) for the next run`, {
      cause,
    });
    this.name = 'SpooledDownloadError';
  }
}

/**
 * A spool file being written: first the bytes that reached the part file before the output failed,
 * then the rest of the response. Written beside its final name and renamed, so a spooled file is
 * always whole.
 */
export class SpoolFile {
  private bytes = 0;

  private constructor(
    readonly dest: string,
    private readonly tmp: string,
    private readonly handle: fsp.FileHandle,
  ) {}

  static async start(dest: string, from?: { path: string; bytes: number }): Promise<SpoolFile> {
    await fsp.mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
    const tmp = `${dest}.incoming`;
    const f = new SpoolFile(dest, tmp, await fsp.open(tmp, 'w', 0o600));
    if (from && from.bytes > 0)
      for await (const chunk of createReadStream(from.path, { start: 0, end: from.bytes - 1 }))
        await f.write(chunk as Buffer);
    return f;
  }

  async write(buf: Buffer): Promise<void> {
    await writeAll(this.handle, buf, this.tmp);
    this.bytes += buf.length;
  }

  /** Make it whole under its name; answers its size. */
  async finish(): Promise<number> {
    await this.handle.sync();
    await this.handle.close();
    await fsp.rename(this.tmp, this.dest);
    await fsyncDir(path.dirname(this.dest));
    return this.bytes;
  }

  async discard(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await fsp.rm(this.tmp, { force: true });
  }
}

/** Documents waiting in the spool (their ids), for status; not the part files of downloads under way. */
export function listSpooled(spoolDir: string): string[] {
  try {
    return fs
      .readdirSync(spoolDir)
      .filter((n) => !n.startsWith('.') && !n.endsWith('.incoming'))
      .map((n) => decodeURIComponent(n))
      .sort();
  } catch {
    return [];
  }
}

/**
 * Spool files whose job is recorded done: a worker stopped between recording the output and
 * removing the file. Removed (answers their document ids). Only files the state vouches for go: a
 * spool folder may be shared by workers of this pipeline on one machine, and by another pipeline
 * whose manifest names the same folder.
 */
export async function sweepSpool(
  spoolDir: string,
  doneDocuments: (ids: readonly string[]) => Promise<Set<string>>,
): Promise<string[]> {
  const ids = listSpooled(spoolDir);
  if (!ids.length) return [];
  const done = [...(await doneDocuments(ids))];
  await Promise.all(done.map((id) => fsp.rm(spooledPath(spoolDir, id), { force: true })));
  return done;
}
