import { copyFile, readFile, writeFile } from 'node:fs/promises';
import type { Engine, EngineOptions, TranslateOptions } from './types.js';
import { DocumentFormatError } from './types.js';

// PLACEHOLDER engine so the API layer can be built and tested first: txt only, trivially marked.
// The engine/formats work replaces this file's body (keeping `createEngine`'s signature).

function mark(text: string, opts: TranslateOptions): string {
  return text.length === 0 ? text : `[${opts.targetLang}] ${text}`;
}

export function createEngine(_opts: EngineOptions = {}): Engine {
  return {
    translateTexts(texts, opts) {
      return {
        texts: texts.map((t) => mark(t, opts)),
        detectedSourceLang: opts.sourceLang ?? 'en',
        billedCharacters: texts.reduce((n, t) => n + t.length, 0),
      };
    },
    async translateDocument(input, output, opts) {
      if (input.ext === 'txt') {
        const text = await readFile(input.path, 'utf8');
        await writeFile(
          output.path,
          text
            .split('\n')
            .map((l) => mark(l, opts))
            .join('\n'),
        );
        return { characters: text.length };
      }
      if (['png', 'jpg', 'jpeg'].includes(input.ext)) {
        await copyFile(input.path, output.path);
        return { characters: 0 };
      }
      throw new DocumentFormatError(`placeholder engine: .${input.ext} is not supported yet`);
    },
  };
}

export type { Engine, EngineOptions } from './types.js';
