// Text from the outside (file names, service messages) shown on a terminal or in a report line:
// a file name may legally hold a newline, a carriage return, an escape sequence or a bidirectional
// override, which would break one line into two, rewrite the screen or reorder what is read. Such
// characters are shown escaped (\n, \r, \t, \u{1b}); everything else is kept as it is.

/** C0 and C1 controls, DEL, line/paragraph separators and bidirectional embeddings and overrides. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every unprintable character escaped, so that it stays one visible line. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u{${c.codePointAt(0)!.toString(16)}}`);
}
