import fs from 'node:fs';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { InlineItem } from '../memory/inline.js';
import { ConfigError } from '../util/errors.js';

// An XLIFF 1.2 file read for its units: per <file> its original and target-language, per
// <trans-unit> its id, and the inline content of its own <source> and <target> (not those of an
// <alt-trans> another tool added). Other tools' attributes, namespaces, notes and states are left
// aside; <g>/<bx>/<ex> are spans, <x>/<ph>/<bpt>/<ept>/<it> codes (their native content skipped).

export interface XliffUnit {
  file: string;
  targetLang: string;
  id: string;
  /** locsync writes document#index here: where the unit sat. */
  resname: string;
  line: number;
  source: InlineItem[];
  target: InlineItem[] | undefined;
}

const CODES = new Set(['x', 'ph', 'bpt', 'ept', 'it']);

export function readXliff(file: string): XliffUnit[] {
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
  let original = '';
  let targetLang = '';
  let unit: XliffUnit | undefined;
  let content: InlineItem[] | undefined;
  /** Depth inside a native code element (<ph>…</ph>) whose text is not translatable. */
  let inCode = 0;
  const spans: string[] = [];
  const local = (name: string) => name.slice(name.indexOf(':') + 1);
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const name = local(tag.name);
    const parent = stack.at(-1);
    stack.push(name);
    const a = tag.attributes as Record<string, string>;
    if (name === 'file') {
      original = a.original ?? '';
      targetLang = a['target-language'] ?? '';
    } else if (name === 'trans-unit')
      unit = {
        file: original,
        targetLang,
        id: a.id ?? '',
        resname: a.resname ?? '',
        line: parser.line,
        source: [],
        target: undefined,
      };
    else if (unit && parent === 'trans-unit' && (name === 'source' || name === 'target')) {
      content = [];
      if (name === 'source') unit.source = content;
      else unit.target = content;
    } else if (content) {
      if (inCode > 0) inCode++;
      else if (name === 'g') {
        spans.push(a.id ?? '');
        content.push({ t: 'open', id: a.id ?? '', keep: true });
      } else if (name === 'bx') content.push({ t: 'open', id: a.rid ?? a.id ?? '', keep: true });
      else if (name === 'ex') content.push({ t: 'close', id: a.rid ?? a.id ?? '' });
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
    else if (content && name === 'g') content.push({ t: 'close', id: spans.pop() ?? '' });
    if (name === 'source' || name === 'target') {
      if (stack.at(-1) === 'trans-unit') content = undefined;
    } else if (name === 'trans-unit' && unit) {
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
