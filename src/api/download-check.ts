// Whether a download delivered the whole document. A document can be downloaded once: a part file
// that is short must never be put in place as the translation, so this is decided by one rule, here.

/**
 * The error that makes a download incomplete, or undefined when it is whole. With a Content-Length
 * (and no content encoding, which would make it the length of other bytes) the count decides: every
 * announced byte arrived, or the download is short, whatever the transport said or did not say about
 * it. Without one (chunked, compressed), only a stream that ended without an error is whole.
 */
export function incompleteDownload(
  headers: Record<string, string | string[] | undefined>,
  bytes: number,
  streamError: unknown,
): unknown {
  const announced = headers['content-encoding'] ? undefined : headers['content-length'];
  if (typeof announced !== 'string') return streamError;
  const expected = Number(announced);
  if (bytes === expected) return undefined;
  // Short: the transport's own reason says most (a timeout, a reset), else the count.
  if (streamError !== undefined) return streamError;
  return Object.assign(new Error(`the download ended after ${bytes} of ${announced} bytes`), {
    code: 'ERR_STREAM_PREMATURE_CLOSE',
  });
}
