// XLIFF 2.x (segment/source/target) and 1.2 (trans-unit/source/target): the source of each segment
// is a segment (role unit) whose translation is written as its target (an existing target is
// replaced, a missing one inserted after the source). Inline codes (<ph/>, <pc>, <sc/>, <ec/>, <g>,
// <x/> ...) are code pieces and stay as they are, as do ids; the target language is set on the root
// (2.x trgLang) or on each <file> (1.2 target-language). Everything else is byte-identical.
import { readFile, writeFile } from 'node:fs/promises';
import { checkAborted } from '../limits.js';
import { DocumentFormatError } from '../errors.js';
import type { Piece, Segment } from '../segment.js';
import { decodeText, encodeText } from './text-encoding.js';
import {
  applySplices,
  assertWellFormed,
  attribute,
  decodeXml,
  escapeXml,
  localName,
  setAttribute,
  tokenize,
  type Splice,
  type XmlToken,
} from './xml.js';
import { openedDocument, SegmentList, textsOut, type FormatReader } from './reader.js';

/** The pieces of the inner XML of a <source>: text (entities decoded, CDATA unwrapped) and inline codes. */
function inlinePieces(xml: string): Piece[] {
  const pieces: Piece[] = [];
  for (const t of tokenize(xml, 'XLIFF source')) {
    const raw = xml.slice(t.start, t.end);
    if (t.kind === 'text') pieces.push({ text: decodeXml(raw) });
    else if (t.kind === 'cdata') pieces.push({ text: raw.slice(9, -3) });
    else pieces.push({ text: raw, code: true });
  }
  return pieces;
}

interface Unit {
  tag: { start: number; end: number };
  source?: { innerStart: number; innerEnd: number; end: number };
  target?: { start: number; end: number; tag: string; innerStart: number; innerEnd: number };
}

/** A unit with a source, as the writer needs it: where its target goes, and its pieces. */
interface UnitSlot {
  unit: Required<Pick<Unit, 'source'>> & Unit;
  /** Namespace prefix of the unit's element ("" or "x:"), for a new <target>. */
  prefix: string;
  pieces: Piece[];
  /** Undefined when the source has no text (its target is still written, as the source). */
  segment: Segment | undefined;
}

export const readXliff: FormatReader = async (path, ctx) => {
  const decoded = decodeText(await readFile(path), `the .${ctx.format} file`);
  const xml = decoded.text;
  assertWellFormed(xml, `the .${ctx.format} file`);
  const tokens = [...tokenize(xml, 'XLIFF')];
  const root = tokens.find((t): t is Extract<XmlToken, { kind: 'open' }> => t.kind === 'open');
  if (!root || localName(root.name) !== 'xliff') {
    throw new DocumentFormatError(
      `not an XLIFF file: the root element is <${root?.name ?? 'none'}>, not <xliff>`,
    );
  }
  const rootTag = xml.slice(root.start, root.end);
  const version = attribute(rootTag, 'version') ?? '';
  const v2 = /^2\./.test(version);
  if (!v2 && version !== '1.2') {
    throw new DocumentFormatError(`unsupported XLIFF version "${version}": XLIFF 2.x and 1.2 are supported`);
  }
  const unitName = v2 ? 'segment' : 'trans-unit';
  const found = new SegmentList();
  const slots: UnitSlot[] = [];
  /** 1.2 <file> start tags: each gets the target language. */
  const files: Array<{ start: number; end: number }> = [];

  let unit: Unit | undefined;
  let sourceOpen: { innerStart: number } | undefined;
  let targetOpen: { start: number; tag: string } | undefined;
  for (const t of tokens) {
    if (t.kind === 'open') {
      const name = localName(t.name);
      if (!v2 && name === 'file') {
        files.push({ start: t.start, end: t.end });
      } else if (name === unitName && !t.selfClosing) {
        unit = { tag: { start: t.start, end: t.end } };
      } else if (unit && name === 'source' && !unit.source && !sourceOpen) {
        if (t.selfClosing) unit.source = { innerStart: t.end, innerEnd: t.end, end: t.end };
        else sourceOpen = { innerStart: t.end };
      } else if (unit && name === 'target' && !unit.target && !sourceOpen && !targetOpen) {
        const tag = xml.slice(t.start, t.end);
        if (t.selfClosing) {
          const inner = { innerStart: t.end, innerEnd: t.end };
          unit.target = { start: t.start, end: t.end, tag: tag.replace(/\s*\/>$/, '>'), ...inner };
        } else targetOpen = { start: t.start, tag };
      }
    } else if (t.kind === 'close') {
      const name = localName(t.name);
      if (unit && sourceOpen && name === 'source') {
        unit.source = { innerStart: sourceOpen.innerStart, innerEnd: t.start, end: t.end };
        sourceOpen = undefined;
      } else if (unit && targetOpen && name === 'target') {
        const innerStart = targetOpen.start + targetOpen.tag.length;
        unit.target = {
          start: targetOpen.start,
          end: t.end,
          tag: targetOpen.tag,
          innerStart,
          innerEnd: t.start,
        };
        targetOpen = undefined;
      } else if (unit && name === unitName) {
        if (unit.source) {
          if ((slots.length + 1) % 500 === 0) checkAborted(ctx);
          const text = ctx.side === 'target' && unit.target ? unit.target : unit.source;
          const pieces = inlinePieces(xml.slice(text.innerStart, text.innerEnd));
          const id = attribute(xml.slice(unit.tag.start, unit.tag.end), 'id');
          const segment = found.add('unit', `<${unitName}> ${id ?? `number ${slots.length + 1}`}`, pieces);
          const prefix = t.name.slice(0, t.name.length - unitName.length);
          slots.push({ unit: unit as UnitSlot['unit'], prefix, pieces, segment });
        }
        unit = undefined;
      }
    }
  }
  if (slots.length === 0)
    throw new DocumentFormatError(`the XLIFF file has no <${unitName}> with a <source> to translate`);

  return openedDocument({
    format: ctx.format,
    keepsLayout: true,
    outputFormats: [ctx.format],
    segments: found.segments,
    async write(translationOf, out, opts) {
      const lang = opts.targetLang;
      const splices: Splice[] = [];
      if (v2)
        splices.push({ start: root.start, end: root.end, text: setAttribute(rootTag, 'trgLang', lang) });
      for (const f of files)
        splices.push({ ...f, text: setAttribute(xml.slice(f.start, f.end), 'target-language', lang) });
      for (const { unit: u, prefix, pieces, segment } of slots) {
        const texts = textsOut(segment, pieces, translationOf);
        const inner = texts.map((p, i) => (pieces[i]?.code ? p : escapeXml(p))).join('');
        if (u.target) {
          const close = `</${u.target.tag.slice(1).match(/^[^\s/>]+/)?.[0] ?? 'target'}>`;
          splices.push({ start: u.target.start, end: u.target.end, text: `${u.target.tag}${inner}${close}` });
        } else {
          // a new target goes on its own line, indented like the source
          const lineStart = xml.lastIndexOf('\n', u.source.innerStart) + 1;
          const indent = /^[ \t]*/.exec(xml.slice(lineStart))?.[0] ?? '';
          const text = `\n${indent}<${prefix}target>${inner}</${prefix}target>`;
          splices.push({ start: u.source.end, end: u.source.end, text });
        }
        const unitTag = xml.slice(u.tag.start, u.tag.end);
        if (v2 && attribute(unitTag, 'state') !== undefined) {
          splices.push({ ...u.tag, text: setAttribute(unitTag, 'state', 'translated') });
        }
      }
      await writeFile(out.path, encodeText(applySplices(xml, splices), decoded));
    },
  });
};
