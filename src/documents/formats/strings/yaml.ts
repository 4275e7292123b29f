// YAML string files: Rails (config/locales/en.yml, one root key naming the language), Symfony,
// Hugo i18n, and any nested YAML of strings. The `yaml` package's document API parses the file with
// each node's source range; every string scalar is a keyed value ("app.title", "steps[2]"; a Rails
// file's keys without the root) and the writer splices the translated scalar in place, in the style
// the source used (plain, single- or double-quoted, literal | or folded > block with the same
// indentation), so comments, anchors, key order and the other values stay byte for byte. A Rails
// root key (`en:`) is written as the target's (`de:`, `pt-BR:`).
//
// Not written through the library's own stringify of the whole document: it re-flows the file
// (quoting, indentation, comment placement). Only one scalar at a time is made by it (plain when
// YAML 1.1, what Ruby's Psych reads, keeps it a string, else quoted).
import { readFile } from 'node:fs/promises';
import { isAlias, isMap, isScalar, isSeq, parseDocument, stringify, type Node, type Scalar } from 'yaml';
import { DocumentFormatError } from '../../errors.js';
import { languageInStyle } from '../../language-tag.js';
import { decodeText } from '../text-encoding.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, type StringEntry } from './keyed.js';

/** A top-level key that names a language (Rails: en, pt-BR, zh_CN). */
const LANGUAGE_KEY = /^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;

/** A plain or quoted scalar on one line: YAML 1.1's choice, so that "yes" or "10" stay strings. */
function inlineScalar(text: string, type: Scalar.Type | undefined): string {
  if (text.includes('\n') || type === 'QUOTE_DOUBLE') return JSON.stringify(text);
  if (type === 'QUOTE_SINGLE') return `'${text.replaceAll("'", "''")}'`;
  return stringify(text, { version: '1.1', lineWidth: 0 }).replace(/\n$/, '');
}

/** A block scalar with the source's header (|, |-, >+ ...) and content indentation. */
function blockScalar(text: string, raw: string, folded: boolean): string {
  const nl = raw.indexOf('\n');
  const header = raw.slice(0, nl);
  const firstLine =
    raw
      .slice(nl + 1)
      .split('\n')
      .find((l) => l.trim() !== '') ?? '  ';
  const indent = /^ */.exec(firstLine)?.[0] ?? '  ';
  const body = text.replace(/\n+$/, '');
  // a folded scalar folds a single line break into a space: a kept break is an empty line
  const lines = body.split('\n').flatMap((l, i) => (folded && i > 0 ? ['', l] : [l]));
  const trailing = raw.endsWith('\n') ? '\n' : '';
  return `${header}\n${lines.map((l) => (l ? indent + l : '')).join('\n')}${trailing}`;
}

export const readYaml: FormatReader = async (path, ctx) => {
  const decoded = decodeText(await readFile(path), `the .${ctx.format} file`);
  const text = decoded.text;
  const doc = parseDocument(text, { keepSourceTokens: false, uniqueKeys: false });
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line;
    throw new DocumentFormatError(
      `the .${ctx.format} file is not valid YAML${line ? ` (line ${line})` : ''}: ${error.message.split('\n')[0]}`,
    );
  }
  const entries: StringEntry[] = [];
  const walk = (node: unknown, path: string): void => {
    if (isAlias(node)) return; // the anchored value is translated where it is defined
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        walk(pair.value, path ? `${path}.${key}` : key);
      }
    } else if (isSeq(node)) node.items.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (isScalar(node) && typeof node.value === 'string' && node.range) {
      const [start, end] = node.range;
      const raw = text.slice(start, end);
      const type = node.type;
      const block = type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED';
      const encode = (t: string): string =>
        block ? blockScalar(t, raw, type === 'BLOCK_FOLDED') : inlineScalar(t, type);
      entries.push({ key: path, text: node.value, span: { start, end }, encode });
    }
  };
  const root = doc.contents as Node | null;
  // Rails: one root key naming the language; the keys below it are the file's keys.
  let railsKey: Scalar | undefined;
  if (isMap(root) && root.items.length === 1) {
    const only = root.items[0];
    if (
      only &&
      isScalar(only.key) &&
      typeof only.key.value === 'string' &&
      LANGUAGE_KEY.test(only.key.value)
    ) {
      railsKey = only.key;
      walk(only.value, '');
    }
  }
  if (!railsKey) walk(root, '');
  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    // ICU messages in YAML (FormatJS, vue-i18n, Symfony's +intl-icu files) get the target's plurals.
    icuPlurals: true,
    languageSplices: (lang) => {
      const range = railsKey?.range;
      return range ? [{ start: range[0], end: range[1], text: languageInStyle(lang, 'bcp47') }] : [];
    },
  });
};
