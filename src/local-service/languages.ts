// Language codes the local service accepts, modelled on the real service's public lists.
import { supportsFormality } from '../api/languages.js';
import { FORMALITIES, type Formality } from '../api/types.js';
import { badRequest } from './errors.js';

/** Source languages (upper-case, no regional variants). */
export const SOURCE_LANGUAGES = [
  'AR',
  'BG',
  'CS',
  'DA',
  'DE',
  'EL',
  'EN',
  'ES',
  'ET',
  'FI',
  'FR',
  'HE',
  'HU',
  'ID',
  'IT',
  'JA',
  'KO',
  'LT',
  'LV',
  'NB',
  'NL',
  'PL',
  'PT',
  'RO',
  'RU',
  'SK',
  'SL',
  'SV',
  'TH',
  'TR',
  'UK',
  'VI',
  'ZH',
] as const;

/** Target languages (upper-case, with the regional variants of the real service). */
export const TARGET_LANGUAGES = [
  ...SOURCE_LANGUAGES,
  'EN-GB',
  'EN-US',
  'ES-419',
  'PT-BR',
  'PT-PT',
  'ZH-HANS',
  'ZH-HANT',
] as const;

const sources = new Set<string>(SOURCE_LANGUAGES);
const targets = new Set<string>(TARGET_LANGUAGES);

/** Validates a target_lang value; returns it lower-case (the engine's convention). */
export function parseTargetLang(value: unknown, field = 'target_lang'): string {
  if (value === undefined || value === null || value === '')
    throw badRequest(`Parameter '${field}' is required.`, 'missing_field');
  if (typeof value !== 'string') throw badRequest(`Parameter '${field}' must be a string.`, 'invalid_type');
  if (!targets.has(value.toUpperCase()))
    throw badRequest(`Value for '${field}' not supported: ${value}`, 'unsupported_language');
  return value.toLowerCase();
}

/** Validates an optional source_lang value; returns it lower-case or undefined. */
export function parseSourceLang(value: unknown, field = 'source_lang'): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw badRequest(`Parameter '${field}' must be a string.`, 'invalid_type');
  if (!sources.has(value.toUpperCase()))
    throw badRequest(`Value for '${field}' not supported: ${value}`, 'unsupported_language');
  return value.toLowerCase();
}

/**
 * Validates formality against the target language (document spec 4.1): more/less only on the
 * languages that support it; prefer_* anywhere (default formality applies where unsupported).
 */
export function parseFormality(value: unknown, targetLang: string): Formality | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !(FORMALITIES as readonly string[]).includes(value))
    throw badRequest(
      `Value for 'formality' not supported: ${String(value)} (one of ${FORMALITIES.join(', ')})`,
      'invalid_value',
    );
  const f = value as Formality;
  if (f === 'more' || f === 'less') {
    const upper = targetLang.toUpperCase();
    if (!supportsFormality(upper))
      throw badRequest(
        `'formality' is not supported for target language ${upper}; use prefer_more or prefer_less to fall back to the default formality.`,
        'formality_not_supported',
      );
  }
  return f;
}
