import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Engine } from '../service/engine/index.js';
import { decodeText } from '../service/formats/text-encoding.js';

// The real service reports only billed characters, which for pptx/docx/doc/xlsx/pdf is at least
// 50,000. To show what the minimum added, and to price a planned upload before it is made, count
// the document's characters with locsync's own document reader (the count the local service bills
// before its minimum): an estimate for the real service.

/** Counts the characters of many documents with one engine and one scratch folder. */
export interface CharacterCounter {
  /** Characters of translatable text in the document at `absPath`; undefined when it cannot be read. */
  count(absPath: string): Promise<number | undefined>;
  /** Removes the scratch folder. */
  close(): Promise<void>;
}

export async function openCharacterCounter(): Promise<CharacterCounter> {
  const { createEngine } = await import('../service/engine/index.js');
  const engine: Engine = createEngine();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-count-'));
  let n = 0;
  return {
    async count(absPath) {
      const ext = path.extname(absPath).slice(1).toLowerCase();
      // The engine reads a document by translating it: the translation goes to the scratch folder.
      const outExt = ext === 'doc' ? 'docx' : ext;
      const out = path.join(dir, `count-${++n}.${outExt}`);
      try {
        const result = await engine.translateDocument(
          { path: absPath, ext, filename: path.basename(absPath) },
          { path: out, ext: outExt },
          // A source language given: the count needs no language detection (the slow part).
          { targetLang: 'de', sourceLang: 'en' },
        );
        return result.characters;
      } catch {
        return undefined;
      } finally {
        await fs.rm(out, { force: true });
      }
    },
    close: () => fs.rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Characters of a .txt document as the engine counts them, without loading the engine or writing a
 * translation: the txt handler (src/service/formats/txt.ts) makes each line a segment, and the
 * translator (src/service/engine/translator.ts) counts the code points of the non-blank segments.
 * A plan prices many small text files; this skips the document reader's load (~150 ms) and a
 * scratch write and remove per file. Undefined when the file is not readable text (as the engine).
 */
export async function countPlainText(absPath: string): Promise<number | undefined> {
  let text: string;
  try {
    const bytes = await fs.readFile(absPath);
    // The document reader refuses an empty file (src/service/formats/index.ts): not a document.
    if (bytes.length === 0) return undefined;
    text = decodeText(bytes, 'the .txt file').text;
  } catch {
    return undefined;
  }
  let n = 0;
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line.trim() === '') continue;
    for (const _ of line) n++;
  }
  return n;
}

/**
 * A counter opened on the first count that needs it (the document reader is loaded only when a
 * document other than plain text is counted).
 */
export class LazyCounter {
  private opened: Promise<CharacterCounter> | undefined;

  async count(absPath: string): Promise<number | undefined> {
    if (path.extname(absPath).toLowerCase() === '.txt') return countPlainText(absPath);
    this.opened ??= openCharacterCounter();
    return (await this.opened).count(absPath);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened) await (await opened).close();
  }
}
