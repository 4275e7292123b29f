import fs from 'node:fs/promises';
import { openDocument } from '../documents/index.js';
import type { BadOutputKind } from './types.js';

// The bad-output faults (docs/local-service.md): a document that ends `done`, billed, with a
// translation that is not one — what real services sometimes return, and what the output checks
// of a client (docs/qa.md) must catch.

/** A document's format: its extension, lower case. */
function formatOf(file: { ext: string }): string {
  return file.ext.toLowerCase();
}

/** Sentences a `wrong-language` output is made of (a detector reads each reliably). */
const WRONG_LANGUAGE: Record<'es' | 'it', string[]> = {
  es: [
    'El informe trimestral muestra un crecimiento de los ingresos en todas las regiones del país.',
    'Los equipos trabajan juntos para entregar cada documento a tiempo y sin errores de ningún tipo.',
    'Abra el archivo para ver la traducción completa de este capítulo y de los siguientes.',
  ],
  it: [
    'Il rapporto trimestrale mostra una crescita dei ricavi in tutte le regioni del paese.',
    'Le squadre lavorano insieme per consegnare ogni documento in tempo e senza errori di alcun tipo.',
    'Aprite il file per vedere la traduzione completa di questo capitolo e dei seguenti.',
  ],
};

/**
 * Replaces the engine's translation at `output` by the bad output `kind` made from it or from the
 * source at `input`.
 */
export async function spoilOutput(
  kind: BadOutputKind,
  input: { path: string; ext: string },
  output: { path: string; ext: string },
  targetLang: string,
): Promise<void> {
  switch (kind) {
    case 'untranslated': {
      // The source written back as it is (the writer keeps every segment's source text).
      const doc = await openDocument(input.path, { format: formatOf(input) });
      await doc.write(() => undefined, { path: output.path, format: formatOf(output) }, { targetLang });
      return;
    }
    case 'truncated': {
      const { size } = await fs.stat(output.path);
      await fs.truncate(output.path, Math.floor(size / 2));
      return;
    }
    case 'wrong-language': {
      // Every segment in another language than the one asked for (Spanish; Italian for Spanish).
      const sentences = WRONG_LANGUAGE[targetLang.toLowerCase().startsWith('es') ? 'it' : 'es'];
      const doc = await openDocument(input.path, { format: formatOf(input) });
      const tmp = `${output.path}.spoil`;
      await doc.write(
        (s) => {
          const first = s.pieces.findIndex((p) => !p.code && p.text.trim() !== '');
          const sentence = sentences[s.id % sentences.length] as string;
          return s.pieces.map((p, i) => (p.code ? p.text : i === first ? sentence : ''));
        },
        { path: tmp, format: formatOf(output) },
        { targetLang },
      );
      await fs.rename(tmp, output.path);
      return;
    }
    case 'dropped-segments': {
      // Only the first quarter of the segments keep their text; the others are emptied (a segment
      // without text is no segment: the reader does not list it).
      const doc = await openDocument(output.path, { format: formatOf(output) });
      let total = 0;
      for await (const _ of doc.segments()) total++;
      const keep = Math.floor(total / 4);
      const tmp = `${output.path}.spoil`;
      await doc.write(
        (s) => (s.id < keep ? undefined : s.pieces.map((p) => (p.code ? p.text : ''))),
        { path: tmp, format: formatOf(output) },
        { targetLang },
      );
      await fs.rename(tmp, output.path);
      return;
    }
  }
}
