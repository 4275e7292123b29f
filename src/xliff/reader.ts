import fs from 'node:fs';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { InlineItem } from '../memory/inline.js';
import { ConfigError } from '../util/errors.js';
import { EXTRADATA_TARGET } from './digest.js';

// An XLIFF file read for its units, 1.2 or 2.x (docs/xliff.md). 1.2: per <file> its original and
// target-language, per <trans-unit> its id, resname and the inline content of its own <source> and
// <target> (not those of an <alt-trans> another tool added). 2.x: the root's trgLang, per <file> its
// original, per <unit> its id and name, its <segment>s' and <ignorable>s' sources and targets joined
// (a tool may split a unit). Other tools' attributes, namespaces, notes and states are left aside;
// <g>/<bx>/<ex>, <pc>/<sc>/<ec> are spans, <x>/<ph>/<bpt>/<ept>/<it> codes (native content skipped),
// <mrk> only marks its text.

export interface XliffUnit {
  file: string;
  targetLang: string;
  id: string;
  /** locsync writes document#index here: where the unit sat. */
  resname: string;
  line: number;
  source: InlineItem[];
  target: InlineItem[] | undefined;
  /** The digest of the target the unit was exported with (writer.ts), when the file kept it. */
  exported: string | undefined;
  /** The version the file says it is: its inline tags are named so in messages. */
  version: '1.2' | '2.1';
}

const CODES = new Set(['x', 'ph', 'bpt', 'ept', 'it']);

/**
 * The exported target's digest on a unit: 1.2's `extradata="target:…"`, 2.1's `target` attribute
 * of locsync's namespace (whatever prefix a tool gave it: the reader does not resolve namespaces,
 * and no other namespace's `target` is written on a unit by locsync).
 */
function exportedDigest(a: Record<string, string>): string | undefined {
  if (a.extradata?.startsWith(EXTRADATA_TARGET)) return a.extradata.slice(EXTRADATA_TARGET.length);
  const key = Object.keys(a).find((k) => k.endsWith(':target') && !k.startsWith('xmlns'));
  return key === undefined ? undefined : a[key];
}

export function readXliffUnits(file: string): XliffUnit[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigError(`${file}: no such file`);
    throw err;
  }
  const parser = new SaxesParser({ xmlns: false, position: true });
  const units: XliffUnit[] = [];
  const stack: string[] = [];
  let version: XliffUnit['version'] = '1.2';
  let original = '';
  let targetLang = '';
  let unit: XliffUnit | undefined;
  let content: InlineItem[] | undefined;
  /** Depth inside a native code element (<ph>…</ph>) whose text is not translatable. */
  let inCode = 0;
  const spans: string[] = [];
  const local = (name: string) => name.slice(name.indexOf(':') + 1);
  /** The elements whose <source> and <target> are the unit's own. */
  const holders = new Set(['trans-unit', 'segment', 'ignorable']);
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const name = local(tag.name);
    const parent = stack.at(-1);
    stack.push(name);
    const a = tag.attributes as Record<string, string>;
    if (name === 'xliff') {
      if ((a.version ?? '').startsWith('2')) version = '2.1';
      targetLang = a.trgLang ?? '';
    } else if (name === 'file') {
      original = a.original ?? '';
      if (version === '1.2') targetLang = a['target-language'] ?? '';
    } else if (name === 'trans-unit' || (name === 'unit' && version === '2.1'))
      unit = {
        file: original,
        targetLang,
        id: a.id ?? '',
        resname: a.resname ?? a.name ?? '',
        line: parser.line,
        source: [],
        target: undefined,
        exported: exportedDigest(a),
        version,
      };
    else if (unit && holders.has(parent ?? '') && (name === 'source' || name === 'target')) {
      // A 2.x unit's segments are joined: each adds to the unit's source and target.
      if (name === 'source') content = unit.source;
      else content = unit.target ??= [];
    } else if (content) {
      if (inCode > 0) inCode++;
      else if (name === 'g' || name === 'pc') {
        spans.push(a.id ?? '');
        content.push({ t: 'open', id: a.id ?? '', keep: true });
      } else if (name === 'bx' || name === 'sc')
        content.push({ t: 'open', id: a.rid ?? a.id ?? '', keep: true });
      else if (name === 'ex' || name === 'ec')
        content.push({ t: 'close', id: a.rid ?? a.startRef ?? a.id ?? '' });
      else if (CODES.has(name)) {
        content.push({ t: 'code', id: a.id ?? '' });
        inCode = 1;
      }
    }
  });
  parser.on('closetag', (tag) => {
    const name = local(tag.name);
    stack.pop();
    if (inCode > 0) inCode--;
    else if (content && (name === 'g' || name === 'pc')) content.push({ t: 'close', id: spans.pop() ?? '' });
    if (name === 'source' || name === 'target') {
      if (holders.has(stack.at(-1) ?? '')) content = undefined;
    } else if ((name === 'trans-unit' || name === 'unit') && unit) {
      units.push(unit);
      unit = undefined;
    }
  });
  parser.on('text', (t) => {
    if (content && inCode === 0) content.push({ t: 'text', text: t });
  });
  try {
    parser.write(text).close();
  } catch (err) {
    throw new ConfigError(`${file}: not XLIFF: ${(err as Error).message}`);
  }
  return units;
}
