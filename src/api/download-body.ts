// Receiving a download's body into its part file. The service hands a document over once (and it
// is paid for), so the bytes must land somewhere: once the output fails (disk full, ...), the rest of
// the response goes to the spool beside the state; a part file that cannot be put in place is kept
// in the spool too. Whether every byte arrived is decided by the caller (download-check.ts).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { PartFile, PlaceAt } from '../util/part-file.js';
import { SpoolFile, SpooledDownloadError } from '../util/spool.js';
import { isFsError } from './failures.js';

export interface ReceivedBody {
  bytes: number;
  /** sha256 of the bytes received (hex): what the caller records of the download without reading it again. */
  sha256: string;
  /** Why the transport broke off, when it did (the bytes may still all be there). */
  streamError?: unknown;
  /** The spool the rest went to after the output failed, and that failure. */
  spooled?: { spool: SpoolFile; outputError: Error };
}

/** Streams the body into `part`, falling back to a spool in `spoolTo` when the output fails. */
export async function receiveBody(
  stream: Readable,
  part: PartFile,
  spoolTo: string | undefined,
): Promise<ReceivedBody> {
  let bytes = 0;
  const hash = createHash('sha256');
  let spooled: ReceivedBody['spooled'];
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      bytes += buf.length;
      hash.update(buf);
      if (!spooled) {
        try {
          await part.write(buf);
          continue;
        } catch (err) {
          if (!isFsError(err) || !spoolTo) throw err;
          const spool = await SpoolFile.start(spoolTo, { path: part.path, bytes: bytes - buf.length });
          spooled = { spool, outputError: err as Error };
        }
      }
      await spooled.spool.write(buf);
    }
  } catch (err) {
    if (isFsError(err)) {
      await spooled?.spool.discard();
      throw err;
    }
    // The transport broke off: whether every byte arrived anyway is decided by the caller.
    return { bytes, sha256: hash.digest('hex'), streamError: err, ...(spooled ? { spooled } : {}) };
  }
  return { bytes, sha256: hash.digest('hex'), ...(spooled ? { spooled } : {}) };
}

/**
 * Puts a whole download in place: a body that went to the spool is finished there
 * (SpooledDownloadError: delivered by a later run); a part file that cannot be committed is kept in
 * the spool the same way.
 */
export async function deliverBody(
  received: ReceivedBody,
  part: PartFile,
  spoolTo: string | undefined,
  placeAt?: PlaceAt,
): Promise<void> {
  const { spooled } = received;
  if (spooled)
    throw new SpooledDownloadError(spooled.spool.dest, await spooled.spool.finish(), spooled.outputError);
  try {
    await part.commit(placeAt);
  } catch (err) {
    if (!isFsError(err) || !spoolTo) throw err;
    const kept = await SpoolFile.start(spoolTo, { path: part.path, bytes: received.bytes });
    throw new SpooledDownloadError(kept.dest, await kept.finish(), err as Error);
  }
}
