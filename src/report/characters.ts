import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

// The real service reports only billed characters, which for pptx/docx/doc/xlsx/pdf is at least
// 50,000. To show what the minimum added, count the document's characters with locsync's own
// document reader (the count the local service bills before its minimum): an estimate.

/** Characters of translatable text in the document at `absPath`; undefined when it cannot be read. */
export async function countDocumentCharacters(absPath: string): Promise<number | undefined> {
  const ext = path.extname(absPath).slice(1).toLowerCase();
  const { createEngine } = await import('../service/engine/index.js');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-count-'));
  try {
    const outExt = ext === 'doc' ? 'docx' : ext;
    const result = await createEngine().translateDocument(
      { path: absPath, ext, filename: path.basename(absPath) },
      { path: path.join(dir, `count.${outExt}`), ext: outExt },
      { targetLang: 'de' },
    );
    return result.characters;
  } catch {
    return undefined;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
