import { taggedText, type Piece } from '../documents/index.js';
import { decodeXml, escapeXml } from '../documents/formats/xml.js';

// Inline markup of an exchange format (TMX's <bpt>/<ept>/<ph>/<it>/<hi>, and XLIFF's alike) mapped
// onto the pipeline's own inline tags (src/documents/tagged.ts): a segment is a row of pieces, each
// formatted run a text piece (<g id="i">), each code a code piece (<x id="i"/>). The tags of the
// exchange format say where a run starts and ends; what the native code was (<b>, a field) is not
// kept: the document layer keeps it in the document, and the memory's key is the pieces alone. So
// "Click <bpt i="1">&lt;b&gt;</bpt>Save<ept i="1">&lt;/b&gt;</ept> now." is the Markdown paragraph
// "Click **Save** now." and the docx paragraph with one bold word alike.
//
// A translation's pieces are matched to its source's by the tags' identities (bpt/ept i, ph/hi x),
// so a translation that moves a bold word keeps it bold.

/** One item of an inline content, as an exchange format's reader yields it. */
export type InlineItem =
  | { t: 'text'; text: string }
  /** A span opens (<bpt i>, <hi>, <g>): its text is a run of its own. `keep`: kept even when empty. */
  | { t: 'open'; id: string; keep?: boolean }
  | { t: 'close'; id: string }
  /** A standalone code (<ph>, <ut>, <x/>): a code piece. */
  | { t: 'code'; id: string }
  /** An isolated tag (<it>): a run ends or starts here. */
  | { t: 'break' };

/** A piece of an inline content with the identity its tags give it (matched between the sides). */
interface LabelledPiece {
  piece: Piece;
  label: string;
}

/** Builds the labelled pieces of one inline content (a class: no closures made per content). */
class PieceRow {
  readonly out: LabelledPiece[] = [];
  readonly stack: string[] = [];
  private readonly seen = new Map<string, number>();
  private outside = 0;
  text = '';
  keepEmpty = false;

  private label(base: string): string {
    const n = this.seen.get(base) ?? 0;
    this.seen.set(base, n + 1);
    return `${base}#${n}`;
  }

  /** The text gathered so far ends a run (a tag follows, or the content ends). */
  flush(): void {
    const top = this.stack.at(-1);
    if (this.text !== '' || this.keepEmpty)
      this.out.push({
        piece: { text: this.text },
        label: this.label(top ? `s:${top}` : `o:${this.outside}`),
      });
    if (!top && this.text !== '') this.outside++;
    this.text = '';
    this.keepEmpty = false;
  }

  code(id: string): void {
    this.flush();
    this.out.push({ piece: { text: '', code: true }, label: this.label(`c:${id}`) });
  }
}

/** The pieces of an inline content, each with its label (its span or code identity, occurrence). */
function labelledPieces(items: readonly InlineItem[]): LabelledPiece[] {
  const row = new PieceRow();
  for (const item of items) {
    if (item.t === 'text') row.text += item.text;
    else if (item.t === 'open') {
      row.flush();
      row.stack.push(item.id);
      row.keepEmpty = item.keep === true;
    } else if (item.t === 'close') {
      row.flush();
      const at = row.stack.lastIndexOf(item.id);
      if (at >= 0) row.stack.splice(at, 1);
    } else if (item.t === 'code') row.code(item.id);
    else row.flush();
  }
  row.flush();
  return row.out;
}

/** A source content in the pipeline's tagged form (its memory key's text), with its pieces' labels. */
export interface TaggedSource {
  tagged: string;
  /** Label → the piece index it has in `tagged`. */
  ids: ReadonlyMap<string, number>;
  single: boolean;
  /** Whether it has text to translate (not only blanks and codes). */
  hasText: boolean;
}

export function taggedSource(items: readonly InlineItem[]): TaggedSource {
  const pieces = labelledPieces(items);
  const ids = new Map(pieces.map((p, i) => [p.label, i]));
  const single = pieces.length === 1 && !pieces[0]?.piece.code;
  return {
    tagged: pieces.length === 0 ? '' : taggedText({ pieces: pieces.map((p) => p.piece) }),
    ids,
    single,
    hasText: pieces.some((p) => !p.piece.code && p.piece.text.trim() !== ''),
  };
}

/**
 * A translation's content in the tagged form of its source: each text run in the <g> of the source
 * piece with the same identity (a run the source has not joins the run before it), each code as
 * the source's code; a code the source has not is left out.
 */
export function taggedTarget(source: TaggedSource, items: readonly InlineItem[]): string {
  const pieces = labelledPieces(items);
  if (source.single)
    return escapeXml(
      pieces
        .filter((p) => !p.piece.code)
        .map((p) => p.piece.text)
        .join(''),
    );
  let last: number | undefined;
  let out = '';
  for (const p of pieces) {
    const id = source.ids.get(p.label);
    if (p.piece.code) {
      if (id !== undefined) out += `<x id="${id}"/>`;
      continue;
    }
    const to = id ?? last;
    if (to === undefined) out += escapeXml(p.piece.text);
    else out += `<g id="${to}">${escapeXml(p.piece.text)}</g>`;
    if (id !== undefined) last = id;
  }
  return out;
}

const TAGGED = /<g id="(\d+)">([^<>]*)<\/g>|<x id="(\d+)"\s*\/>|([^<>]+)/gy;

/**
 * A tagged string (a memory row's source or translation) as inline items: each <g id="i"> a span
 * `i` kept even when empty (so that reading it back gives the same pieces), each <x id="i"/> code
 * `i`, text outside every tag as it is.
 */
export function inlineOfTagged(tagged: string): InlineItem[] {
  if (!/[<>]/.test(tagged)) return [{ t: 'text', text: decodeXml(tagged) }];
  const items: InlineItem[] = [];
  TAGGED.lastIndex = 0;
  for (let m = TAGGED.exec(tagged); m; m = TAGGED.exec(tagged)) {
    if (m[1] !== undefined) {
      items.push({ t: 'open', id: m[1], keep: true });
      items.push({ t: 'text', text: decodeXml(m[2] ?? '') });
      items.push({ t: 'close', id: m[1] });
    } else if (m[3] !== undefined) items.push({ t: 'code', id: m[3] });
    else items.push({ t: 'text', text: decodeXml(m[4] ?? '') });
  }
  return items;
}
