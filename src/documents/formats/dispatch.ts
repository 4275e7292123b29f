// Opening a document: its format's reader from the registry (format-registry.ts), which loads each
// reader's module (and its libraries: parse5, saxes, yauzl, pdf.js, pdf-lib, word-extractor) on
// first use, so that counting the characters of plain text does not pay for PDF support.
import { stat } from 'node:fs/promises';
import type { OpenedDocument, ReadOptions } from '../document.js';
import { DocumentFormatError } from '../errors.js';
import { formatOf } from '../format-registry.js';
import { DEFAULT_LIMITS } from '../limits.js';

/** Reads the document at `path` as `opts.format`; DocumentFormatError when it is not one. */
export async function openDocument(path: string, opts: ReadOptions): Promise<OpenedDocument> {
  const format = opts.format.toLowerCase();
  const record = formatOf(format);
  if (!record) throw new DocumentFormatError(`.${format} documents are not supported`);
  const info = await stat(path);
  if (info.size === 0)
    throw new DocumentFormatError(`the file is empty: an empty .${format} is not a valid document`);
  const reader = await record.reader();
  return reader(path, {
    format,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.side ? { side: opts.side } : {}),
    ...(opts.lang ? { lang: opts.lang } : {}),
    ...(opts.formatOptions ? { formatOptions: opts.formatOptions } : {}),
  });
}
