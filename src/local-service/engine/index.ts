// The local service's translation engine: phrasebook, glossary, pseudo-localisation and style rules
// (docs/engine.md), over every document format the document layer (src/documents) reads.
import type { Engine, EngineOptions } from './types.js';
import { Phrasebook } from './phrasebook.js';
import { createTranslator } from './translator.js';
import { detectLanguage, languageByScript, preloadDetector } from './detect.js';
import { DEFAULT_LIMITS, piecesOfTaggedText, taggedText } from '../../documents/index.js';
import type { SegmentTranslator } from './translator.js';
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
      const out = texts.map((t) =>
        topts.tagHandling === 'xml' ? translateTagged(translator, t) : translator.translateText(t),
      );
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

/**
 * A text with xml tag handling: a segment in the document layer's tagged form (what locsync's
 * segment path sends) is translated piece by piece exactly as the document path translates that
 * segment, so both methods give the same text; other markup is translated as one text.
 */
function translateTagged(translator: SegmentTranslator, text: string): string {
  const pieces = piecesOfTaggedText(text);
  if (!pieces) return translator.translateText(text);
  const code = pieces.some((p) => p.code) ? pieces.map((p) => p.code === true) : undefined;
  const out = translator.translate(
    pieces.map((p) => p.text),
    code,
  );
  return taggedText({ pieces: out.map((t, i) => (pieces[i]?.code ? { text: t, code: true } : { text: t })) });
}

export type { Engine, EngineOptions } from './types.js';
export { DocumentFormatError } from './types.js';
