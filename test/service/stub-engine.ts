// Engines for tests of the API layer that must not depend on the document formats.
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import type { Engine, TranslateOptions } from '../../src/local-service/engine/types.js';
import { DocumentFormatError } from '../../src/local-service/engine/types.js';

export interface StubEngine extends Engine {
  /** Options of every translateDocument call, in order. */
  calls: TranslateOptions[];
  maxConcurrent: number;
}

export interface StubOptions {
  /** Characters the engine reports (default: the input's size). */
  characters?: number;
  /** Time each translation takes, ms. */
  delayMs?: number;
  /** Fail every document with a DocumentFormatError carrying this message. */
  fail?: string;
  /** Throw a plain Error synchronously (an engine bug). */
  crash?: boolean;
  /** Wait until aborted (the service closes mid-translation). */
  hang?: boolean;
}

/** Copies the input to the output, prefixed by "[target]" for text. */
export function stubEngine(o: StubOptions = {}): StubEngine {
  let running = 0;
  const engine: StubEngine = {
    calls: [],
    maxConcurrent: 0,
    translateTexts: (texts, opts) => ({
      texts: texts.map((t) => `[${opts.targetLang}] ${t}`),
      detectedSourceLang: opts.sourceLang ?? 'en',
      billedCharacters: texts.join('').length,
    }),
    translateDocument(input, output, opts, signal) {
      if (o.crash) throw new Error('engine bug');
      engine.calls.push(opts);
      running++;
      engine.maxConcurrent = Math.max(engine.maxConcurrent, running);
      return (async () => {
        try {
          if (o.hang)
            await new Promise<void>((_, reject) =>
              signal?.addEventListener('abort', () => reject(new Error('aborted'))),
            );
          if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
          if (o.fail) throw new DocumentFormatError(o.fail);
          if (input.ext === 'txt') {
            const text = await readFile(input.path, 'utf8');
            await writeFile(output.path, `[${opts.targetLang}] ${text}`);
            return { characters: o.characters ?? text.length };
          }
          await copyFile(input.path, output.path);
          return { characters: o.characters ?? (await readFile(input.path)).length };
        } finally {
          running--;
        }
      })();
    },
  };
  return engine;
}
