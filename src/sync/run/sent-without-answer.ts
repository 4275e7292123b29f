import type { UploadDocumentRequest } from '../../api/types.js';
import type { JobRecord, SegmentMemory } from '../../state/types.js';

/**
 * Whether an earlier run may have sent this job's work and not recorded the answer (a crash): such
 * a job is listed as possibly billed. A document: its upload started with no document recorded. A
 * segment job's row cannot tell a crash between two requests (nothing owed) from one during a
 * request: its text requests can; only one recorded as sent with no recorded answer may be owed.
 */
export async function sentWithoutAnswer(
  recorded: JobRecord,
  request: UploadDocumentRequest | undefined,
  memory: SegmentMemory | undefined,
): Promise<boolean> {
  const started = recorded.status === 'pending' && !!recorded.upload_started_at && !recorded.document_id;
  if (!started || !request?.segments || !memory) return started;
  return (await memory.unansweredOf(recorded.id)).length > 0;
}
