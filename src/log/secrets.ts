// Secrets (API keys, document keys) must never reach a log line, an error message or a plain file.
// Every module that learns a secret registers it here; `scrub` replaces every registered value.

const secrets = new Set<string>();

/** Remember a secret so that `scrub` hides it from then on. Short values (< 6 chars) are ignored. */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 6) secrets.add(value);
}

export function forgetSecrets(): void {
  secrets.clear();
}

/** The password of a URL anywhere in a text (scheme://user:password@): shown as '***'. */
const URL_PASSWORD = /\b([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/:@\s]*):[^/@\s]+@/g;

/**
 * A secret in a URL's query string (libpq's password=, passfile=, sslpassword=; a service's
 * auth_key=): its value shown as '***'.
 */
const URL_SECRET_PARAM = /([?&](?:password|passfile|sslpassword|auth_key)=)[^&#\s]*/gi;

/**
 * A document key written out as one ("document_key ABC…", `"document_key":"ABC…"`, "document key:
 * ABC…"): a key never registered in this process (an error stored by an older locsync, whose job no
 * longer records its key) is still recognisable by its label.
 */
const LABELLED_DOCUMENT_KEY = /(document[_ -]?key["']?\s*[:=]?\s*["']?)[A-Za-z0-9+/_-]{16,}=*/gi;

/**
 * Replace every registered secret in `text` by a redaction marker, every password written in a URL
 * and every labelled document key: a password too short to register safely (`registerSecret`
 * ignores them, as they would redact ordinary words) is still recognisable by where it stands.
 */
export function scrub(text: string): string {
  let out = text.includes('://')
    ? text.replace(URL_PASSWORD, '$1:***@').replace(URL_SECRET_PARAM, '$1***')
    : text;
  out = out.replace(LABELLED_DOCUMENT_KEY, '$1[REDACTED]');
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join('[REDACTED]');
  }
  return out;
}

/**
 * A URL as it may be shown: a password in it (https://user:secret@host) and the value of a secret
 * query parameter (?password=…) replaced by '***'. Text that is not a URL is cut at '@' the same
 * way, so that a malformed one leaks nothing either. The one function that shows a URL: the
 * PostgreSQL state's URL (displayUrl) and the service's go through it.
 */
export function redactUrl(url: string): string {
  return url
    .replace(/^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/:@\s]*):[^/@\s]*@/, '$1:***@')
    .replace(URL_SECRET_PARAM, '$1***');
}
