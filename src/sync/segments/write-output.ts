import fsp from 'node:fs/promises';
import path from 'node:path';
import type { OpenedDocument, StringWriteOptions, TranslationOf } from '../../documents/index.js';
import { makeFolder, type TakeBack } from '../../util/made-folder.js';
import { oneAtATime } from '../../util/one-at-a-time.js';
import { PartFile, type PlaceAt } from '../../util/part-file.js';

// The translated document written by the document layer's writer (every byte that is not translated
// text as in the source) into a part file beside the output, checked, then renamed into place: the
// same one way to a finished file as a download (src/util/part-file.ts).

export interface WriteTranslated {
  doc: OpenedDocument;
  translationOf: TranslationOf;
  outputAbs: string;
  format: string;
  targetLang: string;
  /** A string file's plural forms a person worded, by form key (../reviewed-segments.ts). */
  forms?: ReadonlyMap<string, string>;
  /** Each translated value is checked by `translationOf`'s caller, who refuses what broke in `vet`. */
  valuesChecked?: boolean;
  /** Where the part file is renamed to (beside an output a person edited: ../run/edited-output.ts). */
  placeAt: PlaceAt;
  /** Looks at the written part file before it is put in place (the output checks; throws to refuse). */
  vet: (partPath: string) => Promise<void>;
  /**
   * The output is the target's part of a file holding every language (its source: .xcstrings): the
   * target is written into that file as it is now, read, written and renamed one language at a time.
   */
  inPlace?: boolean;
}

/** Answers the bytes written. */
export async function writeTranslated(w: WriteTranslated): Promise<number> {
  if (!w.inPlace) return writeOnce(w);
  return oneAtATime(w.outputAbs, () => writeOnce(w));
}

async function writeOnce(w: WriteTranslated): Promise<number> {
  const { part, takeBack } = await openPart(w.outputAbs);
  let placed = false;
  try {
    // The writers write the file at the path given, in place: the part file's handle syncs it.
    const opts: StringWriteOptions = {
      targetLang: w.targetLang,
      ...(w.forms?.size ? { forms: w.forms } : {}),
      ...(w.valuesChecked ? { valuesChecked: true } : {}),
      ...(w.inPlace ? { into: w.outputAbs } : {}),
    };
    await w.doc.write(w.translationOf, { path: part.path, format: w.format }, opts);
    const { size } = await fsp.stat(part.path);
    await w.vet(part.path);
    await part.commit(w.placeAt);
    placed = true;
    return size;
  } finally {
    await part.discard();
    // An output refused by its checks (or a write that broke off) leaves no empty folder.
    if (!placed) await takeBack();
  }
}

/**
 * The part file beside `outputAbs`, in a folder made for it if need be. Another output's refusal may
 * take that folder back between its making and the part file's opening: it is made again (twice).
 */
async function openPart(outputAbs: string): Promise<{ part: PartFile; takeBack: TakeBack }> {
  for (let attempt = 1; ; attempt++) {
    try {
      const takeBack = await makeFolder(path.dirname(outputAbs));
      // A fixed tag per output: a write killed half-way is overwritten by the next one.
      return { part: await PartFile.open(outputAbs, 'segments', { exclusive: false }), takeBack };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw err;
    }
  }
}
