// The text endpoint (POST /v2/translate) that the segment path sends its segments to.

import type { CallOptions, ServiceTransport } from './transport.js';
import type { TranslateTextRequest, TranslateTextResponse } from './types.js';

/**
 * Translate texts (POST /v2/translate). Billed by the characters of the texts: retried only when
 * the service surely did not take the request (as an upload); a failure after it was sent throws
 * UploadMaybeAcceptedError (the service may have translated, and billed, it).
 */
export async function translateText(
  t: ServiceTransport,
  req: TranslateTextRequest,
  opts: CallOptions = {},
): Promise<TranslateTextResponse> {
  const method = 'POST';
  const path = '/v2/translate';
  if (req.style_id !== undefined) t.requirePro({ method, path });
  return t.request<TranslateTextResponse>({ method, path, kind: 'text', json: req }, opts);
}
