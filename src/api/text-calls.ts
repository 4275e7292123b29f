// The text endpoint (POST /v2/translate) that the segment path sends its segments to.

import type { AnswerCheck, CallOptions, ServiceTransport } from './transport.js';
import type { TranslateTextRequest, TranslateTextResponse } from './types.js';

/**
 * Translate texts (POST /v2/translate). Billed by the characters of the texts: retried only when
 * the service surely did not take the request (as an upload); a failure after it was sent throws
 * UploadMaybeAcceptedError (the service may have translated, and billed, it), and so does a 2xx
 * answer that cannot be read (not JSON, not one translation per text): the service translated them.
 */
export async function translateText(
  t: ServiceTransport,
  req: TranslateTextRequest,
  opts: CallOptions = {},
): Promise<TranslateTextResponse> {
  const method = 'POST';
  const path = '/v2/translate';
  if (req.style_id !== undefined) t.requirePro({ method, path });
  return t.request({ method, path, kind: 'text', json: req }, opts, translationsOf(req.text.length));
}

/** A text request's answer: one translation (its text) per text sent. */
function translationsOf(texts: number): AnswerCheck<TranslateTextResponse> {
  return {
    holds: (a): a is TranslateTextResponse => {
      const translations = (a as Partial<TranslateTextResponse> | null | undefined)?.translations;
      return (
        Array.isArray(translations) &&
        translations.length === texts &&
        translations.every((x: unknown) => typeof (x as { text?: unknown } | null)?.text === 'string')
      );
    },
    what: `${texts} translation(s), one per text`,
  };
}
