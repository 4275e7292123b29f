// The service's refusals that come back the same on every attempt. Sending the same document with
// the same settings again cannot help: only a change of the manifest (or of the file) can. The
// service says why in words only (DeepL's error_message, "subject to change"), so a message that
// matches none of these keeps the usual retries up to max_attempts.

/** Where a refused translation was going, to name the setting to change. */
export interface RefusedAt {
  mapping: string;
  target: string;
}

interface Refusal {
  pattern: RegExp;
  fix: (at: RefusedAt) => string;
}

const REFUSALS: readonly Refusal[] = [
  {
    // A document sent without source_lang is in the language the service guesses from its text,
    // and a short text is often guessed wrong ("Plain notes." taken for French).
    pattern: /source and target language are (equal|the same)/i,
    fix: (at) =>
      `the service took the document to be in ${at.target.toUpperCase()} already: set source_lang on mapping ${at.mapping} to the language the sources are written in (e.g. source_lang: en), or remove the target ${at.target} if they are in ${at.target}`,
  },
  {
    pattern: /value for '?target_lang'? not supported|target language .*not supported/i,
    fix: (at) =>
      `the service does not translate into ${at.target}: correct that target of mapping ${at.mapping} (\`locsync validate\` names the service's languages)`,
  },
  {
    pattern: /value for '?source_lang'? not supported|source language .*not supported/i,
    fix: (at) =>
      `the service does not translate from the source_lang of mapping ${at.mapping}: correct it (\`locsync validate\` names the service's languages)`,
  },
  {
    pattern: /'?formality'? is not supported for target language/i,
    fix: (at) =>
      `the target ${at.target} has no formality levels: remove formality from it in mapping ${at.mapping}, or use prefer_more or prefer_less`,
  },
];

/** Whether the service's refusal `message` will be the same on every attempt (not retried). */
export function refusedForGood(message: string | null | undefined): boolean {
  return !!message && REFUSALS.some((r) => r.pattern.test(message));
}

/** What the user must change for a refusal that will be the same on every attempt (undefined: none). */
export function refusalFix(message: string | null | undefined, at: RefusedAt): string | undefined {
  if (!message) return undefined;
  return REFUSALS.find((r) => r.pattern.test(message))?.fix(at);
}

/** What a summary or status says after such a refusal: why it is not retried, and the fix. */
export function notRetriedAdvice(message: string | null | undefined, at: RefusedAt): string {
  const fix = refusalFix(message, at) ?? 'change the file or the mapping';
  return `Not retried, it fails the same way every time; ${fix}. A changed file or setting is sent again.`;
}
