// YAML front matter: the values of a documented set of top-level keys are text shown to a reader
// (a page's title, its description in search results); every key, every other value, comments and
// the fences stay as they are. A translated value is written in its source's style (plain, quoted,
// block) when that style can hold it, else double-quoted. TOML front matter (+++) is left untouched.
import type { Yaml } from 'mdast';
import { isMap, isScalar, parse, parseDocument, type Scalar } from 'yaml';
import { DocumentFormatError } from '../errors.js';
import { joinSoftBreaks } from './markdown-escape.js';

/** Front-matter keys whose (string) values are translated: docs/markdown.md lists them. */
export const FRONT_MATTER_KEYS: ReadonlySet<string> = new Set([
  'title',
  'subtitle',
  'description',
  'summary',
  'excerpt',
  'caption',
  'sidebar_label',
  'linkTitle',
]);

/** A translatable value: its text, where its source is (offsets in the whole document) and its style. */
export interface FrontMatterValue {
  key: string;
  text: string;
  start: number;
  end: number;
  style: Scalar.Type | undefined;
  line: number;
}

const LINE_BREAK = /\r\n|\n|\r/g;

/** The translatable values of a YAML front matter node; a front matter that is not YAML is refused. */
export function frontMatterValues(source: string, node: Yaml, what: string): FrontMatterValue[] {
  const start = node.position?.start.offset;
  if (start === undefined || node.value.trim() === '') return [];
  // The value is the text between the fences: it starts after the opening fence's line break.
  const fence = /\r\n|\n|\r/.exec(source.slice(start, start + 8));
  if (!fence) return [];
  const base = start + fence.index + fence[0].length;
  const firstLine = (node.position?.start.line ?? 1) + 1;
  const doc = parseDocument(node.value);
  const error = doc.errors[0];
  if (error) {
    const line = firstLine + (error.linePos?.[0].line ?? 1) - 1;
    throw new DocumentFormatError(
      `${what}: the front matter is not valid YAML (line ${line}): ${error.message.split('\n')[0]}`,
    );
  }
  if (!isMap(doc.contents)) return [];
  const values: FrontMatterValue[] = [];
  for (const item of doc.contents.items) {
    if (!isScalar(item.key) || !FRONT_MATTER_KEYS.has(String(item.key.value))) continue;
    if (!isScalar(item.value) || typeof item.value.value !== 'string' || !item.value.range) continue;
    const [from, to] = item.value.range;
    values.push({
      key: String(item.key.value),
      text: item.value.value,
      start: base + from,
      end: base + to,
      style: item.value.type,
      line: firstLine + (node.value.slice(0, from).match(LINE_BREAK)?.length ?? 0),
    });
  }
  return values;
}

/** True when `text` reads back as itself written as a plain scalar (no quotes). */
function plainHolds(text: string): boolean {
  if (text === '' || text !== text.trim() || /[\r\n]/.test(text)) return false;
  try {
    return (parse(`k: ${text}`) as { k?: unknown } | null)?.k === text;
  } catch {
    return false;
  }
}

/** The YAML source of a translated value in place of `raw`, its source written in `style`. */
export function yamlScalar(text: string, style: Scalar.Type | undefined, raw: string): string {
  if (style === 'BLOCK_LITERAL' || style === 'BLOCK_FOLDED') {
    const header = /^[|>][^\r\n]*(\r\n|\n|\r)/.exec(raw);
    if (header) {
      const lineEnd = header[1] as string;
      const indent = /^[ \t]*/.exec(raw.slice(header[0].length))?.[0] || '  ';
      const trailing = /(?:\r\n|\n|\r)+$/.exec(raw)?.[0] ?? '';
      const lines = style === 'BLOCK_FOLDED' ? [joinSoftBreaks(text)] : text.split(/\r\n|\n|\r/);
      return header[0] + lines.map((l) => (l ? indent + l : '')).join(lineEnd) + trailing;
    }
  }
  if (style === 'QUOTE_SINGLE' && !/[\r\n]/.test(text)) return `'${text.replace(/'/g, "''")}'`;
  if (style === 'PLAIN' && plainHolds(text)) return text;
  // JSON's string escapes are YAML double-quoted escapes.
  return JSON.stringify(text);
}

/**
 * YAML front matter as its data, comments and layout left out (the content digest's view of it);
 * as written when it is not YAML.
 */
export function frontMatterData(value: string): string {
  try {
    return JSON.stringify(parse(value));
  } catch {
    return value;
  }
}
