// The local service's translation engine: phrasebook, pseudo-localisation and style rules
// (docs/engine.md), over every document format in ../formats.
import type { Engine, EngineOptions, TranslateOptions } from './types.js';
import { Phrasebook } from './phrasebook.js';
import { createTranslator, detectLanguage } from './translator.js';
import { DEFAULT_LIMITS, translateFile } from '../formats/index.js';

function sourceLanguage(opts: TranslateOptions, sample: () => string): string {
  return opts.sourceLang?.toLowerCase() || detectLanguage(sample());
}

export function createEngine(opts: EngineOptions = {}): Engine {
  const phrasebook = opts.phrasebookPath ? Phrasebook.load(opts.phrasebookPath) : undefined;
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  return {
    translateTexts(texts, topts) {
      const source = sourceLanguage(topts, () => texts.join('\n').slice(0, 10_000));
      const translator = createTranslator(phrasebook, topts, source);
      const out = texts.map((t) => translator.translateText(t));
      return {
        texts: out,
        detectedSourceLang: source,
        billedCharacters: texts.reduce((n, t) => n + [...t].length, 0),
      };
    },
    async translateDocument(input, output, topts, signal) {
      const translator = createTranslator(phrasebook, topts, topts.sourceLang?.toLowerCase() || 'en');
      await translateFile(input, output, { translator, limits, ...(signal ? { signal } : {}) });
      return { characters: translator.characters };
    },
  };
}

export type { Engine, EngineOptions } from './types.js';
export { DocumentFormatError } from './types.js';
