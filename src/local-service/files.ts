// Where the service keeps uploaded and translated documents: one folder, files named by document id.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from './errors.js';
import type { JobRow } from './store.js';

export interface SavedUpload {
  path: string;
  bytes: number;
  sha256: string;
}

export class DocumentFiles {
  private tmpSeq = 0;
  constructor(readonly dir: string) {}

  inputPath(job: Pick<JobRow, 'document_id' | 'ext'>): string {
    return join(this.dir, `${job.document_id}.in.${job.ext}`);
  }

  outputPath(job: Pick<JobRow, 'document_id' | 'out_ext'>): string {
    return join(this.dir, `${job.document_id}.out.${job.out_ext}`);
  }

  tempPath(): string {
    return join(this.dir, `upload-${process.pid}-${Date.now()}-${++this.tmpSeq}.part`);
  }

  /** Removes partial uploads a previous run left behind. */
  async removeStrayParts(): Promise<void> {
    for (const f of await readdir(this.dir))
      if (f.endsWith('.part')) await rm(join(this.dir, f), { force: true });
  }

  /**
   * Streams an upload to a temp file, hashing and counting on the way; never holds it in memory.
   * More than `limit` bytes: 413 (the partial file is removed).
   */
  async save(stream: Readable, limit: number, tooLarge: (bytes: number) => string): Promise<SavedUpload> {
    const path = this.tempPath();
    const hash = createHash('sha256');
    let bytes = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        if (bytes > limit) return cb(new ApiError(413, 'file_too_large', tooLarge(bytes)));
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    try {
      await pipeline(stream, meter, createWriteStream(path));
    } catch (err) {
      await rm(path, { force: true });
      throw err;
    }
    return { path, bytes, sha256: hash.digest('hex') };
  }
}
