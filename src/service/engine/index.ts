// The local service's translation engine: phrasebook, glossary, pseudo-localisation and style rules
// (docs/engine.md), over every document format the document layer (src/documents) reads.
import type { Engine, EngineOptions } from './types.js';
import { Phrasebook } from './phrasebook.js';
import { createTranslator } from './translator.js';
import { detectLanguage, languageByScript, preloadDetector } from './detect.js';
import { DEFAULT_LIMITS } from '../../documents/index.js';
import { translateDocumentFile } from './translate-document.js';

export function createEngine(opts: EngineOptions = {}): Engine {
  const phrasebook = opts.phrasebookPath ? Phrasebook.load(opts.phrasebookPath) : undefined;
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  if (opts.preloadDetection) preloadDetector();
  return {
    // The API layer detects the language of each text first (detectLanguage, asynchronous);
    // without a source here, the script decides.
    translateTexts(texts, topts) {
      const source = topts.sourceLang?.toLowerCase() || languageByScript(texts.join('\n').slice(0, 10_000));
      const translator = createTranslator(phrasebook, topts, source);
      const out = texts.map((t) => translator.translateText(t));
      return {
        texts: out,
        detectedSourceLang: source,
        billedCharacters: texts.reduce((n, t) => n + [...t].length, 0),
      };
    },
    detectLanguage: (text) => detectLanguage(text, phrasebook),
    async translateDocument(input, output, topts, signal) {
      const translator = createTranslator(phrasebook, topts, topts.sourceLang?.toLowerCase() || 'en');
      await translateDocumentFile(input, output, translator, { limits, signal });
      if (topts.sourceLang || !translator.sample.trim()) return { characters: translator.characters };
      return {
        characters: translator.characters,
        detectedSourceLang: await detectLanguage(translator.sample, phrasebook),
      };
    },
  };
}

export type { Engine, EngineOptions } from './types.js';
export { DocumentFormatError } from './types.js';
