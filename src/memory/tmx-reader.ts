import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { SaxesParser } from 'saxes';
import { ConfigError } from '../util/errors.js';
import type { InlineItem } from './inline.js';

// A TMX file (1.4b; 1.1 to 1.3 read alike) read as a stream: the header, then one translation unit
// at a time, each with the line it starts on, so that a memory of millions of units is read in
// bounded memory. UTF-8 and UTF-16 (with a BOM, as Trados writes it, or without) and the encodings
// the XML declaration names. Broken XML or a file that is not TMX throws TmxError with the line.

/** A file that is not TMX, or broken: a usage error (exit 2) naming the file and line. */
export class TmxError extends ConfigError {
  constructor(file: string, line: number, message: string) {
    super(message, { file, line });
    this.name = 'TmxError';
  }
}

export interface TmxHeader {
  srclang: string;
  creationtool?: string;
  creationdate?: string;
  line: number;
}

export interface TmxVariant {
  lang: string;
  line: number;
  content: InlineItem[];
  changedate?: string;
  creationdate?: string;
}

export interface TmxUnit {
  line: number;
  tuid?: string;
  srclang?: string;
  changedate?: string;
  creationdate?: string;
  /** `<prop type="…">` values of the unit (the last of each type). */
  props: Map<string, string>;
  variants: TmxVariant[];
}

/** The encoding of a file from its first bytes: a BOM, UTF-16 without one, or the XML declaration. */
function encodingOf(head: Buffer): string {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head[0] === 0x3c && head[1] === 0x00) return 'utf-16le';
  if (head[0] === 0x00 && head[1] === 0x3c) return 'utf-16be';
  const decl = /^(?:\uFEFF)?<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(
    head.toString('latin1'),
  );
  const named = decl?.[1]?.toLowerCase();
  if (!named || named.startsWith('utf-16')) return 'utf-8';
  return iconv.encodingExists(named) ? named : 'utf-8';
}

/** Inline elements of a <seg> whose content is native code, not text (left out of the text). */
const CODE_CONTENT = new Set(['bpt', 'ept', 'ph', 'it', 'ut']);

/** What the parser is inside of while it builds a unit. */
interface UnitBuilder {
  unit: TmxUnit;
  variant?: TmxVariant;
  inSeg: boolean;
  /** Depth inside a native-code element (its text is code, not the segment's). */
  codeDepth: number;
  /** Open <hi> ids in order (a </hi> closes the last). */
  hi: string[];
  /** Tags without an id, counted per kind in each <tuv>: the nth of a kind is the same on both sides. */
  auto: Map<string, number>;
  propType?: string;
  propText: string;
}

/**
 * Read a TMX file: its header first, then its units, a chunk's worth at a time (one await per 64 KiB
 * read, not per unit: a million units read in seconds).
 */
export async function* readTmx(file: string): AsyncGenerator<Array<TmxHeader | TmxUnit>> {
  const fd = await fs.promises.open(file, 'r');
  let encoding: string;
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await fd.read(head, 0, 512, 0);
    encoding = encodingOf(head.subarray(0, bytesRead));
  } finally {
    await fd.close();
  }
  const decoder = iconv.getDecoder(encoding);
  const parser = new SaxesParser({ position: true, xmlns: false });
  let ready: Array<TmxHeader | TmxUnit> = [];
  const take = (): Array<TmxHeader | TmxUnit> => {
    const out = ready;
    ready = [];
    return out;
  };
  const fail = (message: string): never => {
    throw new TmxError(file, parser.line, message);
  };
  let sawRoot = false;
  let header: TmxHeader | undefined;
  let b: UnitBuilder | undefined;
  const path: string[] = [];

  parser.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    const parent = path.at(-1);
    path.push(tag.name);
    if (!sawRoot) {
      if (tag.name !== 'tmx') fail(`not a TMX file: the root element is <${tag.name}>, not <tmx>`);
      sawRoot = true;
      return;
    }
    if (tag.name === 'header' && parent === 'tmx') {
      const srclang = a.srclang;
      if (!srclang) fail('the <header> has no srclang');
      header = {
        srclang: srclang as string,
        line: parser.line,
        ...(a.creationtool ? { creationtool: a.creationtool } : {}),
        ...(a.creationdate ? { creationdate: a.creationdate } : {}),
      };
      ready.push(header);
      return;
    }
    if (tag.name === 'tu' && parent === 'body') {
      if (!header) fail('a <tu> before the <header>');
      b = {
        unit: {
          line: parser.line,
          props: new Map(),
          variants: [],
          ...(a.tuid ? { tuid: a.tuid } : {}),
          ...(a.srclang ? { srclang: a.srclang } : {}),
          ...(a.changedate ? { changedate: a.changedate } : {}),
          ...(a.creationdate ? { creationdate: a.creationdate } : {}),
        },
        inSeg: false,
        codeDepth: 0,
        hi: [],
        auto: new Map(),
        propText: '',
      };
      return;
    }
    if (!b) return;
    if (tag.name === 'tuv' && parent === 'tu') {
      const lang = a['xml:lang'] ?? a.lang;
      if (!lang) fail('a <tuv> without xml:lang');
      b.variant = {
        lang: lang as string,
        line: parser.line,
        content: [],
        ...(a.changedate ? { changedate: a.changedate } : {}),
        ...(a.creationdate ? { creationdate: a.creationdate } : {}),
      };
      b.unit.variants.push(b.variant);
      b.auto.clear();
    } else if (tag.name === 'prop' && parent === 'tu') {
      b.propType = a.type ?? '';
      b.propText = '';
    } else if (tag.name === 'seg' && b.variant) b.inSeg = true;
    else if (b.inSeg && b.variant) inlineOpen(b, b.variant, tag.name, a);
  });

  parser.on('text', (text) => {
    if (!b) return;
    if (b.propType !== undefined) b.propText += text;
    else if (b.inSeg && b.codeDepth === 0) b.variant?.content.push({ t: 'text', text });
  });
  parser.on('cdata', (text) => {
    if (b?.inSeg && b.codeDepth === 0) b.variant?.content.push({ t: 'text', text });
  });

  parser.on('closetag', (tag) => {
    path.pop();
    if (!b) return;
    if (tag.name === 'tu') {
      ready.push(b.unit);
      b = undefined;
    } else if (tag.name === 'tuv') b.variant = undefined;
    else if (tag.name === 'prop' && b.propType !== undefined) {
      b.unit.props.set(b.propType, b.propText);
      b.propType = undefined;
    } else if (tag.name === 'seg') b.inSeg = false;
    else if (b.inSeg && b.variant) inlineClose(b, b.variant, tag.name);
  });

  const input = fs.createReadStream(file, { highWaterMark: 64 * 1024 });
  // A file that does not start as XML (JSON, CSV, a PO file) is named for what it is, not as broken XML.
  let start: { line: number } | undefined = { line: 1 };
  const write = (text: string): void => {
    if (start) start = notXml(file, text, start);
    try {
      parser.write(text);
    } catch (err) {
      if (err instanceof TmxError) throw err;
      throw new TmxError(file, parser.line, xmlMessage(err));
    }
  };
  try {
    for await (const chunk of input) {
      write(decoder.write(chunk as Buffer));
      // Units complete in this chunk are handed on before the next is read (bounded memory).
      if (ready.length > 0) yield take();
    }
    write(decoder.end() ?? '');
    try {
      parser.close();
    } catch (err) {
      throw new TmxError(file, parser.line, xmlMessage(err));
    }
  } finally {
    input.destroy();
  }
  if (ready.length > 0) yield take();
  if (!sawRoot) throw new TmxError(file, parser.line, 'not a TMX file: no <tmx> element');
  if (!header) throw new TmxError(file, parser.line, 'not a TMX file: no <header>');
}

/**
 * Before the first character that is not a byte order mark or white space: the line it is on, to be
 * carried into the next chunk (undefined once it was "<"). Any other first character: a TmxError.
 */
function notXml(file: string, text: string, at: { line: number }): { line: number } | undefined {
  let line = at.line;
  for (const c of text) {
    if (c === '\n') line++;
    if (c === '\uFEFF' || /\s/.test(c)) continue;
    if (c === '<') return undefined;
    const ext = path.extname(file).slice(1).toLowerCase();
    const seen = c === '{' || c === '[' ? 'JSON' : ext && ext !== 'tmx' ? `a .${ext} file` : 'not XML';
    throw new TmxError(
      file,
      line,
      `not a TMX file: TMX is XML and starts with "<", this file starts with "${c}" (${seen}); export the memory as TMX from the tool that keeps it (docs/memory.md says how for Trados, memoQ, Phrase, Crowdin, OmegaT), or make one from a PO file with po2tmx`,
    );
  }
  return { line };
}

/** saxes says "file:line:column: message"; the line is ours to give. */
function xmlMessage(err: unknown): string {
  const m = (err as Error).message.replace(/^(?:[^:]*:)?\d+:\d+:\s*/, '');
  return `broken XML: ${m}`;
}

function inlineOpen(b: UnitBuilder, v: TmxVariant, name: string, a: Record<string, string>): void {
  if (b.codeDepth > 0 || CODE_CONTENT.has(name)) {
    if (b.codeDepth === 0) v.content.push(inlineTag(b, name, a));
    b.codeDepth++;
    return;
  }
  if (name === 'hi') {
    const id = `h${a.x ?? nth(b, 'hi')}`;
    b.hi.push(id);
    v.content.push({ t: 'open', id, keep: true });
  }
  // <sub> outside a code, and unknown elements: their text is the segment's.
}

function inlineClose(b: UnitBuilder, v: TmxVariant, name: string): void {
  if (b.codeDepth > 0) {
    b.codeDepth--;
    return;
  }
  if (name === 'hi') {
    const id = b.hi.pop();
    if (id) v.content.push({ t: 'close', id });
  }
}

function nth(b: UnitBuilder, kind: string): string {
  const n = b.auto.get(kind) ?? 0;
  b.auto.set(kind, n + 1);
  return `~${kind}${n}`;
}

/** What a native-code element is in the pipeline's pieces. */
function inlineTag(b: UnitBuilder, name: string, a: Record<string, string>): InlineItem {
  if (name === 'bpt') return { t: 'open', id: `b${a.i ?? nth(b, 'bpt')}` };
  if (name === 'ept') return { t: 'close', id: `b${a.i ?? ''}` };
  if (name === 'it') return { t: 'break' };
  return { t: 'code', id: `p${a.x ?? nth(b, name)}` };
}
