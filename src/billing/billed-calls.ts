import { formatCount, formatCounted as counted } from '../util/format.js';

// The billed calls of a plan or a run in one wording, so that `plan` and the sync's summary count
// the same things with the same words: a *document* is one output translated (a file for one
// target), an *upload* sends a whole document (POST /v2/document), a *text request* sends some
// segments of one (POST /v2/translate, method: segments). A document mapping's documents are its
// uploads; a segments mapping's documents are sent as text requests (several a document, or none
// when the memory holds every segment).

export interface BilledCalls {
  /** Documents translated (each output once), counted apart when some went by text requests. */
  documents: number;
  uploads: number;
  textRequests: number;
  /** Documents an earlier run uploaded (a resumed run collects them; billed by that upload). */
  earlier?: number;
  /** Of the uploads, documents uploaded again after their translation was lost before its download. */
  again?: number;
  /** Uploads whose answer was lost or hidden by a crash (possibly billed), not among `uploads`. */
  unconfirmed?: number;
}

/**
 * "2 uploads", or "5 documents: 4 uploads and 1 text request", or "3 documents: 0 text requests";
 * a run that uploaded more than once for a document names the documents first and says which
 * uploads were extra: "4 documents: 5 uploads (1 again after a lost download: billed twice)",
 * "4 documents: 4 uploads and 1 unconfirmed upload (possibly billed)".
 */
export function formatBilledCalls(c: BilledCalls): string {
  const earlier = c.earlier ?? 0;
  const again = c.again ?? 0;
  const unconfirmed = c.unconfirmed ?? 0;
  const bySegments = c.textRequests > 0 || c.documents > c.uploads + earlier;
  const uploads =
    counted(c.uploads, 'upload', 'uploads') +
    (again ? ` (${formatCount(again)} again after a lost download: billed twice)` : '');
  const parts = [
    ...(c.uploads || (!earlier && !bySegments && !unconfirmed) ? [uploads] : []),
    ...(unconfirmed
      ? [`${counted(unconfirmed, 'unconfirmed upload', 'unconfirmed uploads')} (possibly billed)`]
      : []),
    ...(earlier
      ? [counted(earlier, 'document uploaded by an earlier run', 'documents uploaded by an earlier run')]
      : []),
    ...(bySegments ? [counted(c.textRequests, 'text request', 'text requests')] : []),
  ];
  const calls = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
  return bySegments || again || unconfirmed
    ? `${counted(c.documents, 'document', 'documents')}: ${calls}`
    : calls;
}
