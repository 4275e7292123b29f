import path from 'node:path';

// The real service reports only billed characters, which for pptx/docx/doc/xlsx/pdf is at least
// 50,000. To show what the minimum added, and to price a planned upload before it is made, count
// the document's characters with the document layer's reader (the count the local service bills
// before its minimum): an estimate for the real service.

/** Characters of translatable text in the document at `absPath`; undefined when it cannot be read. */
export async function countDocumentCharacters(absPath: string): Promise<number | undefined> {
  const format = path.extname(absPath).slice(1).toLowerCase();
  try {
    // The document layer loads on the first count: a run that prices nothing (a no-op) never needs it.
    const { countCharacters, openDocument } = await import('../documents/index.js');
    return await countCharacters(await openDocument(absPath, { format }));
  } catch {
    return undefined;
  }
}

/** Counts the characters of many documents (what pricing and the report are handed). */
export interface CharacterCounter {
  /** Characters of translatable text in the document at `absPath`; undefined when it cannot be read. */
  count(absPath: string): Promise<number | undefined>;
  /** Releases what the counter holds (nothing since it reads with the document layer; kept for callers). */
  close(): Promise<void>;
}

export function openCharacterCounter(): Promise<CharacterCounter> {
  return Promise.resolve(new LazyCounter());
}

/**
 * A counter for a plan or a run. A format's reader (and its libraries) loads on the first document of
 * that format (src/documents/formats/dispatch.ts), so a plan of plain-text files never loads pdf.js.
 */
export class LazyCounter implements CharacterCounter {
  count(absPath: string): Promise<number | undefined> {
    return countDocumentCharacters(absPath);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
