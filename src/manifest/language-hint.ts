import { nearest } from './suggest.js';

// The language code a person most likely meant when the service does not know the one written:
// another spelling of a code it knows (`FR`, `pt_BR` → `fr`, `pt-br`), a regional form whose region
// it does not translate into (`fr-FR` → `fr`), or a country code written for a language (`gr`, the
// code of Greece → `el`, Greek; from the locale data of the runtime, not a list kept by hand).

// Made on first use: building them costs ~20 ms, paid at every start (a no-op sync) if made on import.
let regionNames: Intl.DisplayNames | undefined;
let languageNames: Intl.DisplayNames | undefined;
const regions = { of: (code: string) => (regionNames ??= names('region')).of(code) };
const languages = { of: (code: string) => (languageNames ??= names('language')).of(code) };

function names(type: 'region' | 'language'): Intl.DisplayNames {
  return new Intl.DisplayNames(['en'], { type, fallback: 'none' });
}

/** The most likely language of the country with this two-letter code, if it is one. */
function languageOfCountry(code: string): string | undefined {
  const region = code.toUpperCase();
  if (!/^[A-Z]{2}$/.test(region) || !regions.of(region)) return undefined;
  try {
    return new Intl.Locale('und', { region }).maximize().language;
  } catch {
    return undefined;
  }
}

/** Whether `code` names a language at all (`se` is Northern Sami, not a misspelt Sweden). */
function isLanguage(code: string): boolean {
  try {
    const name = languages.of(code);
    return name !== undefined && name !== code;
  } catch {
    return false;
  }
}

/** The code of `allowed` meant by `written`, and why, if one is likely. */
export function suggestLanguage(
  written: string,
  allowed: readonly string[],
): { code: string; why?: string } | undefined {
  const find = (c: string) => allowed.find((a) => a.toLowerCase() === c.toLowerCase());
  const spelled = find(written.replace(/_/g, '-'));
  if (spelled) return spelled === written ? undefined : { code: spelled };
  const [base, region] = written.split(/[-_]/);
  if (region !== undefined && base) {
    const general = find(base);
    if (general)
      return {
        code: general,
        why: `the service has no ${written} of its own; '${general}' is ${languages.of(general) ?? general}`,
      };
  }
  if (!isLanguage(written)) {
    const lang = languageOfCountry(written);
    const code = lang ? find(lang) : undefined;
    if (code)
      return {
        code,
        why: `'${written}' is the country code of ${regions.of(written.toUpperCase())}; ${languages.of(code) ?? code} is '${code}'`,
      };
  }
  const near = nearest(written, allowed);
  return near !== undefined && near !== written ? { code: near } : undefined;
}

/** " (did you mean 'el'? …)" or "". */
export function didYouMeanLanguage(written: string, allowed: readonly string[]): string {
  const s = suggestLanguage(written, allowed);
  if (!s) return '';
  return ` (did you mean '${s.code}'?${s.why ? ` ${s.why}` : ''})`;
}
