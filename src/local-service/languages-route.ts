// GET /v2/languages?type=source|target (the real service's API): codes, English names, and for
// targets whether formality is supported.
import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';
import { supportsFormality } from '../api/languages.js';
import { baseLanguage } from '../documents/language-tag.js';
import { SOURCE_LANGUAGES, TARGET_LANGUAGES } from './languages.js';
import { isObject } from './validate.js';

const NAMES: Record<string, string> = {
  AR: 'Arabic',
  BG: 'Bulgarian',
  CS: 'Czech',
  DA: 'Danish',
  DE: 'German',
  EL: 'Greek',
  EN: 'English',
  'EN-GB': 'English (British)',
  'EN-US': 'English (American)',
  ES: 'Spanish',
  'ES-419': 'Spanish (Latin American)',
  ET: 'Estonian',
  FI: 'Finnish',
  FR: 'French',
  HE: 'Hebrew',
  HU: 'Hungarian',
  ID: 'Indonesian',
  IT: 'Italian',
  JA: 'Japanese',
  KO: 'Korean',
  LT: 'Lithuanian',
  LV: 'Latvian',
  NB: 'Norwegian Bokmål',
  NL: 'Dutch',
  PL: 'Polish',
  PT: 'Portuguese',
  'PT-BR': 'Portuguese (Brazilian)',
  'PT-PT': 'Portuguese (European)',
  RO: 'Romanian',
  RU: 'Russian',
  SK: 'Slovak',
  SL: 'Slovenian',
  SV: 'Swedish',
  TH: 'Thai',
  TR: 'Turkish',
  UK: 'Ukrainian',
  VI: 'Vietnamese',
  ZH: 'Chinese',
  'ZH-HANS': 'Chinese (simplified)',
  'ZH-HANT': 'Chinese (traditional)',
};

// The real service lists EN and PT as targets only with their variants (EN-GB, EN-US, PT-BR, PT-PT).
const TARGETS_LISTED = TARGET_LANGUAGES.filter((l) => l !== 'EN' && l !== 'PT');

export function registerLanguages(app: FastifyInstance): void {
  app.get('/v2/languages', async (req) => {
    const type = isObject(req.query) ? (req.query.type ?? 'source') : 'source';
    if (type === 'source')
      return SOURCE_LANGUAGES.map((language) => ({ language, name: NAMES[language] ?? language }));
    if (type === 'target')
      return TARGETS_LISTED.map((language) => ({
        language,
        name: NAMES[language] ?? NAMES[baseLanguage(language).toUpperCase()] ?? language,
        supports_formality: supportsFormality(language),
      }));
    throw badRequest(`Value for 'type' not supported: ${String(type)} (source or target).`, 'invalid_value');
  });
}
