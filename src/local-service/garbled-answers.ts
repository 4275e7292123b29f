// The garble fault: a request handled in full (an upload accepted, a text translated and billed)
// whose 2xx answer reaches the client unreadable, as when a proxy swaps in its own page or cuts the
// body short. What a client must not take for "nothing happened".

export const GARBLED_ANSWER_KINDS = ['html', 'truncated', 'empty', 'other-json'] as const;
export type GarbledAnswerKind = (typeof GARBLED_ANSWER_KINDS)[number];

const PROXY_PAGE = '<html><body><h1>200 OK</h1><p>Served by the edge proxy.</p></body></html>\n';

/** Only a 2xx JSON answer is garbled: an error answer, or a download's bytes, is left as it is. */
export function garbles(status: number, contentType: unknown): boolean {
  return status >= 200 && status < 300 && String(contentType ?? '').startsWith('application/json');
}

/** The body sent instead of `payload`, the handled request's own answer. */
export function garbledBody(kind: GarbledAnswerKind, payload: unknown): string {
  switch (kind) {
    case 'html':
      return PROXY_PAGE;
    case 'truncated': {
      // A JSON answer is a string by now; a stream (a download) has no text to cut: sent empty.
      const text =
        typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
      return text.slice(0, Math.floor(text.length / 2));
    }
    case 'empty':
      return '';
    case 'other-json':
      return JSON.stringify({ message: 'OK' });
  }
}

/** The content type that goes with the garbled body. */
export function garbledContentType(kind: GarbledAnswerKind): string {
  return kind === 'html' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8';
}
