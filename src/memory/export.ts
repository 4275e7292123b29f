import path from 'node:path';
import type { ExportFilter, TranslationMemory } from '../state/memory-types.js';
import { PartFile } from '../util/part-file.js';
import { VERSION } from '../version.js';
import { exchangeLanguage } from './languages.js';
import { TMX_END, tmxDateOf, tmxStart, tmxUnit } from './tmx-writer.js';

// `locsync memory export --format tmx -o <file>` (docs/memory.md): one <tu> per memory row (a
// segment and its translation into one language), with its dates, origin and the document it came
// from as <prop>s. Written through a part file: the file appears whole or not at all. Rows come in
// pages and are written as they come: bounded memory whatever the memory's size.

export interface ExportSummary {
  file: string;
  units: number;
  /** Rows left out: their source language was detected by the service, not known. */
  unknownSource: number;
}

/** Bytes gathered before one write. */
const FLUSH_AT = 256 * 1024;

export async function exportTmx(
  memory: TranslationMemory,
  out: string,
  filter: ExportFilter,
): Promise<ExportSummary> {
  const known = (await memory.sourceLanguages(filter)).filter((l): l is string => l !== null);
  const srclang = known.length === 1 ? exchangeLanguage(known[0] as string) : '*all*';
  const summary: ExportSummary = { file: out, units: 0, unknownSource: 0 };
  const part = await PartFile.open(path.resolve(out), String(process.pid), { exclusive: false });
  try {
    let buffer = tmxStart({
      srclang,
      creationtool: 'locsync',
      creationtoolversion: VERSION,
      creationdate: tmxDateOf(new Date()),
    });
    for await (const r of memory.rows(filter)) {
      if (r.source_lang === null) {
        summary.unknownSource++;
        continue;
      }
      const props: Array<[string, string]> = [['x-origin', r.origin]];
      if (r.document) props.push(['x-document', r.document]);
      buffer += tmxUnit({
        srclang: exchangeLanguage(r.source_lang),
        targetLang: exchangeLanguage(r.target_lang),
        source: r.source,
        translation: r.translation,
        creationdate: tmxDateOf(r.created_at),
        changedate: tmxDateOf(r.changed_at ?? r.created_at),
        props,
      });
      summary.units++;
      if (buffer.length >= FLUSH_AT) {
        await part.handle.write(buffer);
        buffer = '';
      }
    }
    await part.handle.write(buffer + TMX_END);
    await part.commit();
  } catch (err) {
    await part.discard();
    throw err;
  }
  return summary;
}
