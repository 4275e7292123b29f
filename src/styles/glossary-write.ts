import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Pair, YAMLMap } from 'yaml';
import type { ResolvedGlossary } from '../manifest/types.js';
import { YamlSource } from '../manifest/yaml-source.js';
import type { GlossaryContent } from './glossary-content.js';
import {
  entryLine,
  parseEntries,
  type EntriesFormat,
  type HeaderRule,
} from '../manifest/glossary-entries.js';
import { mapIn, YamlTextEditor } from './yaml-text-edit.js';
import { writeAtomically } from './yaml-write.js';

// Writing glossary entries back where they are kept: `drift: adopt` changes the lines of the
// entries that changed on the service (a CSV/TSV file, or inline in the manifest) and nothing else;
// `glossaries pull` writes one file per language pair.

/**
 * The text of a glossary file holding `entries`, edited from `text`: rows whose term is gone are
 * removed, rows whose translation changed are rewritten, new entries are appended; every other
 * line (blank lines, the order of what stays) is kept as it is.
 */
export function editEntriesText(
  text: string,
  format: EntriesFormat,
  entries: ReadonlyMap<string, string>,
  header: HeaderRule = 'auto',
): string {
  // A header row is no entry: it stays as it is.
  const { rows } = parseEntries(text, format, undefined, header);
  const lines = text.split('\n');
  const replaced = new Map<number, string | null>();
  const present = new Set<string>();
  for (const r of rows) {
    const want = entries.get(r.source);
    const last = r.endLine ?? r.line;
    if (want === undefined || present.has(r.source)) {
      for (let l = r.line; l <= last; l++) replaced.set(l, null);
      continue;
    }
    present.add(r.source);
    if (want !== r.target) {
      const cr = (lines[last - 1] ?? '').endsWith('\r') ? '\r' : '';
      replaced.set(r.line, entryLine(r.source, want, format) + cr);
      for (let l = r.line + 1; l <= last; l++) replaced.set(l, null);
    }
  }
  const out: string[] = [];
  lines.forEach((line, i) => {
    const r = replaced.get(i + 1);
    if (r === undefined) out.push(line);
    else if (r !== null) out.push(r);
  });
  const added = [...entries].filter(([s]) => !present.has(s)).map(([s, t]) => entryLine(s, t, format));
  if (added.length) {
    if (out.length && out[out.length - 1] === '') out.pop();
    out.push(...added, '');
  }
  return out.join('\n');
}

/** Write a glossary file for `entries` (edited in place when it exists); whether it changed. */
export async function writeEntriesFile(
  file: string,
  entries: ReadonlyMap<string, string>,
  format: EntriesFormat,
  header: HeaderRule = 'auto',
): Promise<'created' | 'updated' | 'unchanged'> {
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const next = editEntriesText(text ?? '', format, entries, header);
  if (text === next) return 'unchanged';
  await mkdir(path.dirname(file), { recursive: true });
  await writeAtomically(file, next);
  return text === undefined ? 'created' : 'updated';
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => String((p.key as { value?: unknown }).value ?? p.key) === key) as
    Pair | undefined;
}

/**
 * `drift: adopt`: write the service's entries (`have`) where the glossary is kept. Files of pairs
 * are edited line by line; inline entries and the manifest's `files:`/`entries:` (a pair added or
 * removed on the service) are edited in the manifest's text, byte for byte elsewhere. A pair added
 * on the service goes to a new file beside the glossary's other files (inline when it has none).
 */
export async function adoptGlossaryIntoFiles(
  manifestPath: string,
  g: ResolvedGlossary,
  have: GlossaryContent,
): Promise<void> {
  const source = await YamlSource.read(manifestPath);
  const ed = new YamlTextEditor(source.text);
  const body = mapIn(source.doc.getIn(['glossaries', g.key], true));
  if (!body) throw new Error(`glossary '${g.key}' is not a mapping in ${manifestPath}`);
  const fileDicts = Object.values(g.dictionaries).filter((d) => d.format !== 'yaml');

  for (const [pair, d] of Object.entries(g.dictionaries)) {
    const entries = have.get(pair);
    const section = mapIn(body.get(d.format === 'yaml' ? 'entries' : 'files', true))!;
    if (!entries) {
      // The pair was removed on the service: it goes from the manifest (its file is left alone).
      ed.removePair(section, pairOf(section, pair)!);
      continue;
    }
    if (d.format === 'yaml') {
      const map = mapIn(section.get(pair, true))!;
      for (const p of map.items)
        if (!entries.has(String((p.key as { value?: unknown }).value))) ed.removePair(map, p as Pair);
      for (const [s, t] of entries) ed.setValue(map, s, t);
    } else await writeEntriesFile(d.file, entries, d.format, d.header);
  }

  for (const [pair, entries] of have) {
    if (g.dictionaries[pair]) continue;
    if (fileDicts.length) {
      const first = fileDicts[0]!;
      const format = first.format as EntriesFormat;
      const file = path.join(path.dirname(first.file), `${g.key}.${pair}.${format}`);
      await writeEntriesFile(file, entries, format);
      const rel = path.relative(path.dirname(manifestPath), file).split(path.sep).join('/');
      ed.addPair(mapIn(body.get('files', true))!, pair, rel);
    } else {
      const section = mapIn(body.get('entries', true));
      if (section) ed.addPair(section, pair, Object.fromEntries(entries));
      else ed.addPair(body, 'entries', { [pair]: Object.fromEntries(entries) });
    }
  }
  const next = ed.result();
  if (next !== source.text) await writeAtomically(manifestPath, next);
}
