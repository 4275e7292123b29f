// Zip packages (docx/pptx/xlsx): reading chosen parts into memory, and rewriting the package entry
// by entry with new content for those parts while every other entry is streamed through with the
// same name, order, time and uncompressed content. Bounded against zip bombs: entry count, declared
// and actual uncompressed sizes, and the compression ratio of large entries.
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { DocumentFormatError } from '../errors.js';
import { checkAborted, type ReadContext } from '../limits.js';

/** Entries above this size are checked for an implausible compression ratio. */
const RATIO_CHECK_BYTES = 8 * 1024 * 1024;

export interface ZipPackage {
  /** Human name of the format for messages, e.g. "Word document (.docx)". */
  what: string;
  /** Throws DocumentFormatError when the entry names do not make a package of this format. */
  check(names: ReadonlySet<string>): void;
}

function openZip(path: string, what: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false },
      (err, zip) => {
        if (err)
          reject(
            new DocumentFormatError(`not a valid ${what}: it is not a readable zip package (${err.message})`),
          );
        else resolve(zip);
      },
    );
  });
}

function readEntries(zip: yauzl.ZipFile, what: string): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => {
      entries.push(e);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (err: Error) => reject(new DocumentFormatError(`not a valid ${what}: ${err.message}`)));
    zip.readEntry();
  });
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream)));
  });
}

/** Reads one entry into memory, never more than `max` bytes. */
async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, max: number, what: string): Promise<Buffer> {
  if (entry.uncompressedSize > max) {
    throw new DocumentFormatError(`${what}: ${entry.fileName} is larger than ${max} bytes`);
  }
  const stream = await openEntry(zip, entry);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) {
      stream.destroy();
      throw new DocumentFormatError(`${what}: ${entry.fileName} is larger than ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Validates the package against the limits (before anything is decompressed). */
function checkLimits(entries: yauzl.Entry[], ctx: ReadContext, what: string): void {
  const { maxEntries, maxUncompressedBytes, maxRatio } = ctx.limits;
  if (entries.length > maxEntries) {
    throw new DocumentFormatError(
      `${what} has ${entries.length} zip entries, more than the limit of ${maxEntries}`,
    );
  }
  let total = 0;
  for (const e of entries) {
    if ((e.generalPurposeBitFlag & 0x1) !== 0)
      throw new DocumentFormatError(`${what} is encrypted: ${e.fileName}`);
    total += e.uncompressedSize;
    if (
      e.uncompressedSize > RATIO_CHECK_BYTES &&
      e.uncompressedSize > maxRatio * Math.max(1, e.compressedSize)
    ) {
      throw new DocumentFormatError(
        `${what} looks like a zip bomb: ${e.fileName} expands ${Math.round(e.uncompressedSize / Math.max(1, e.compressedSize))} times`,
      );
    }
  }
  if (total > maxUncompressedBytes) {
    throw new DocumentFormatError(
      `${what} looks like a zip bomb: it expands to ${total} bytes, more than the limit of ${maxUncompressedBytes}`,
    );
  }
}

/** Opens the package, checks it against the limits and its kind, and runs `work` on its entries. */
async function withPackage<T>(
  path: string,
  ctx: ReadContext,
  spec: ZipPackage,
  work: (zip: yauzl.ZipFile, entries: yauzl.Entry[]) => Promise<T>,
): Promise<T> {
  const zip = await openZip(path, spec.what);
  try {
    const entries = await readEntries(zip, spec.what);
    checkLimits(entries, ctx, spec.what);
    spec.check(new Set(entries.map((e) => e.fileName)));
    return await work(zip, entries);
  } catch (err) {
    if (err instanceof DocumentFormatError || (err as Error).name === 'AbortError') throw err;
    throw new DocumentFormatError(`${spec.what} could not be read: ${(err as Error).message}`);
  } finally {
    zip.close();
  }
}

/** Reads the entries `wanted` picks, in package order, each whole into memory (at most maxPartBytes). */
export function readZipParts(
  path: string,
  ctx: ReadContext,
  spec: ZipPackage,
  wanted: (name: string) => boolean,
  onPart: (name: string, content: Buffer) => void,
): Promise<void> {
  return withPackage(path, ctx, spec, async (zip, entries) => {
    for (const entry of entries) {
      checkAborted(ctx);
      if (entry.fileName.endsWith('/') || !wanted(entry.fileName)) continue;
      onPart(entry.fileName, await readEntry(zip, entry, ctx.limits.maxPartBytes, spec.what));
    }
  });
}

/**
 * Rewrites the package at `inPath` into `outPath`: an entry `replacementFor` gives content for gets
 * it, every other entry is copied.
 */
export function rewriteZip(
  inPath: string,
  outPath: string,
  ctx: ReadContext,
  spec: ZipPackage,
  replacementFor: (name: string) => Buffer | undefined,
): Promise<void> {
  return withPackage(inPath, ctx, spec, async (zip, entries) => {
    const out = new yazl.ZipFile();
    const file = createWriteStream(outPath);
    const done = new Promise<void>((resolve, reject) => {
      file.on('close', resolve);
      file.on('error', reject);
      out.on('error', (err: Error) => {
        file.destroy();
        reject(
          err instanceof DocumentFormatError ? err : new DocumentFormatError(`${spec.what}: ${err.message}`),
        );
      });
    });
    out.outputStream.pipe(file);
    try {
      for (const entry of entries) {
        checkAborted(ctx);
        const options = { mtime: entry.getLastModDate(), compress: entry.compressionMethod !== 0 };
        if (entry.fileName.endsWith('/')) {
          out.addEmptyDirectory(entry.fileName, { mtime: options.mtime });
          continue;
        }
        const replacement = replacementFor(entry.fileName);
        if (replacement) {
          out.addBuffer(replacement, entry.fileName, options);
        } else {
          out.addReadStreamLazy(entry.fileName, { ...options, size: entry.uncompressedSize }, (cb) => {
            openEntry(zip, entry).then(
              (stream) => {
                stream.on('error', (err: Error) => out.emit('error', err));
                cb(null, stream);
              },
              (err: Error) => cb(err, undefined as unknown as Readable),
            );
          });
        }
      }
    } catch (err) {
      out.emit('error', err);
      await done.catch(() => undefined);
      throw err;
    }
    out.end();
    await done;
  });
}
