// XLIFF 2.x (segment/source/target) and 1.2 (trans-unit/source/target): the source of each segment
// is translated into its target (an existing target is replaced, a missing one inserted after the
// source). Inline codes (<ph/>, <pc>, <sc/>, <ec/>, <g>, <x/> ...) and ids stay as they are; the target
// language is set on the root (2.x trgLang) or on each <file> (1.2 target-language). Everything else
// is byte-identical.
import { readFile, writeFile } from 'node:fs/promises';
import type { FormatHandler } from './context.js';
import { checkAborted } from './context.js';
import { DocumentFormatError } from '../engine/types.js';
import type { SegmentTranslator } from '../engine/translator.js';
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

/** Translates the inner XML of a <source>: text pieces are translated, inline codes are kept. */
function translateInline(xml: string, translator: SegmentTranslator): string {
  const pieces: string[] = [];
  const fixed: boolean[] = [];
  for (const t of tokenize(xml, 'XLIFF source')) {
    const raw = xml.slice(t.start, t.end);
    if (t.kind === 'text') {
      pieces.push(decodeXml(raw));
      fixed.push(false);
    } else if (t.kind === 'cdata') {
      pieces.push(raw.slice(9, -3));
      fixed.push(false);
    } else {
      pieces.push(raw);
      fixed.push(true);
    }
  }
  const out = translator.translate(pieces, fixed);
  return out.map((p, i) => (fixed[i] ? p : escapeXml(p))).join('');
}

export const translateXliff: FormatHandler = async (input, output, ctx) => {
  const decoded = decodeText(await readFile(input.path), `the .${input.ext} file`);
  const xml = decoded.text;
  assertWellFormed(xml, `the .${input.ext} file`);
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
  const lang = ctx.translator.targetLang;
  const splices: Splice[] = [];
  if (v2) splices.push({ start: root.start, end: root.end, text: setAttribute(rootTag, 'trgLang', lang) });

  let unit:
    | {
        tag: { start: number; end: number };
        source?: { innerStart: number; innerEnd: number; end: number };
        target?: { start: number; end: number; tag: string };
      }
    | undefined;
  let sourceOpen: { innerStart: number } | undefined;
  let targetOpen: { start: number; tag: string } | undefined;
  let units = 0;
  for (const t of tokens) {
    if (t.kind === 'open') {
      const name = localName(t.name);
      if (!v2 && name === 'file') {
        splices.push({
          start: t.start,
          end: t.end,
          text: setAttribute(xml.slice(t.start, t.end), 'target-language', lang),
        });
      } else if (name === unitName && !t.selfClosing) {
        unit = { tag: { start: t.start, end: t.end } };
      } else if (unit && name === 'source' && !unit.source && !sourceOpen) {
        if (t.selfClosing) unit.source = { innerStart: t.end, innerEnd: t.end, end: t.end };
        else sourceOpen = { innerStart: t.end };
      } else if (unit && name === 'target' && !unit.target && !sourceOpen && !targetOpen) {
        const tag = xml.slice(t.start, t.end);
        if (t.selfClosing) unit.target = { start: t.start, end: t.end, tag: tag.replace(/\s*\/>$/, '>') };
        else targetOpen = { start: t.start, tag };
      }
    } else if (t.kind === 'close') {
      const name = localName(t.name);
      if (unit && sourceOpen && name === 'source') {
        unit.source = { innerStart: sourceOpen.innerStart, innerEnd: t.start, end: t.end };
        sourceOpen = undefined;
      } else if (unit && targetOpen && name === 'target') {
        unit.target = { start: targetOpen.start, end: t.end, tag: targetOpen.tag };
        targetOpen = undefined;
      } else if (unit && name === unitName) {
        if (unit.source) {
          if (++units % 500 === 0) checkAborted(ctx);
          const inner = translateInline(
            xml.slice(unit.source.innerStart, unit.source.innerEnd),
            ctx.translator,
          );
          const prefix = t.name.slice(0, t.name.length - unitName.length);
          if (unit.target) {
            const close = `</${unit.target.tag.slice(1).match(/^[^\s/>]+/)?.[0] ?? 'target'}>`;
            splices.push({
              start: unit.target.start,
              end: unit.target.end,
              text: `${unit.target.tag}${inner}${close}`,
            });
          } else {
            // a new target goes on its own line, indented like the source
            const lineStart = xml.lastIndexOf('\n', unit.source.innerStart) + 1;
            const indent = /^[ \t]*/.exec(xml.slice(lineStart))?.[0] ?? '';
            const text = `\n${indent}<${prefix}target>${inner}</${prefix}target>`;
            splices.push({ start: unit.source.end, end: unit.source.end, text });
          }
          const unitTag = xml.slice(unit.tag.start, unit.tag.end);
          if (v2 && attribute(unitTag, 'state') !== undefined) {
            splices.push({ ...unit.tag, text: setAttribute(unitTag, 'state', 'translated') });
          }
        }
        unit = undefined;
      }
    }
  }
  if (units === 0)
    throw new DocumentFormatError(`the XLIFF file has no <${unitName}> with a <source> to translate`);
  await writeFile(output.path, encodeText(applySplices(xml, splices), decoded));
};
