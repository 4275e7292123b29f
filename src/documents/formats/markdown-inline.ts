// The inline content of one Markdown block (a paragraph, a heading, a table cell) as a segment's
// pieces. Each text node is a text piece, translated in place at its source offsets; the syntax
// around it (`**`, `[`, `](url "title")`) is not a piece and stays where it is, so bold stays bold
// and a link keeps its URL. Inline code, images, hard breaks, inline HTML, footnote references and
// autolinks (a URL is not text) are code pieces: they come back unchanged. An image's alt text and
// a link's or image's title are segments of their own.
import type { Image, ImageReference, Nodes, Parent, PhrasingContent } from 'mdast';
import type { Piece } from '../segment.js';
import { joinSoftBreaks, type TextPlace } from './markdown-escape.js';
import { titleOf, type TitleText } from './markdown-title.js';

/** Where a text piece's source is, and what its translation must escape there. */
export interface TextSlot {
  start: number;
  end: number;
  place: TextPlace;
}

/**
 * Source to insert when a translation changes a collapsed or shortcut reference's text (`[Intro][]`,
 * `[Intro]`): there the text is also the label that finds the definition, so the label is written
 * out (`[Einführung][Intro]`) for the reference to keep its target.
 */
export interface LabelKeep {
  /** The text pieces [from, to) that are the reference's text (for an image's alt: none). */
  from: number;
  to: number;
  at: number;
  text: string;
}

/** An image's alt text: its own segment (role attribute). */
export interface AltText {
  text: string;
  start: number;
  end: number;
  line: number;
  keep?: Omit<LabelKeep, 'from' | 'to'>;
}

export interface InlineRun {
  pieces: Piece[];
  /** One per piece: the text piece's source, undefined for a code piece. */
  slots: Array<TextSlot | undefined>;
  labels: LabelKeep[];
  alts: AltText[];
  /** Titles of its links and images: segments of their own (role attribute). */
  titles: Array<TitleText & { of: 'link' | 'image' }>;
}

export type BlockKind = 'paragraph' | 'heading' | 'cell';

function offsets(node: Nodes): { start: number; end: number } | undefined {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? undefined : { start, end };
}

/** Offset of the `]` that closes a label opened just before `from`, or -1 (escapes and nested brackets skipped). */
function labelEnd(source: string, from: number, end: number): number {
  let depth = 0;
  for (let i = from; i < end; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') depth++;
    else if (c === ']' && depth-- === 0) return i;
  }
  return -1;
}

/**
 * The label to write out when the text of a collapsed (`[text][]`) or shortcut (`[text]`) reference
 * is translated; undefined for a full reference (`[text][label]`), whose label is already written.
 */
function labelKeep(
  source: string,
  node: { referenceType: string },
  labelFrom: number,
  labelTo: number,
  end: number,
): Omit<LabelKeep, 'from' | 'to'> | undefined {
  const label = source.slice(labelFrom, labelTo);
  if (node.referenceType === 'collapsed') return { at: end - 1, text: label };
  if (node.referenceType === 'shortcut') return { at: end, text: `[${label}]` };
  return undefined;
}

/** True when only container syntax (indentation, `>`) is before `offset` on its line. */
function startsLine(source: string, offset: number): boolean {
  let i = offset - 1;
  while (i >= 0 && (source[i] === ' ' || source[i] === '\t' || source[i] === '>')) i--;
  return i < 0 || source[i] === '\n' || source[i] === '\r';
}

/** The alt text of an image, with its source range inside the image's `![...]`. */
function altOf(
  source: string,
  node: Image | ImageReference,
  start: number,
  end: number,
): AltText | undefined {
  const text = joinSoftBreaks(node.alt ?? '');
  const close = labelEnd(source, start + 2, end);
  if (text.trim() === '' || close < 0) return undefined;
  const after = source[close + 1];
  // The `]` found must be the one that ends the alt: a parse the scan disagrees with is left alone.
  if (node.type === 'image' ? after !== '(' : !(after === '[' || close + 1 === end)) return undefined;
  const line = node.position?.start.line ?? 0;
  const keep = node.type === 'imageReference' ? labelKeep(source, node, start + 2, close, end) : undefined;
  return { text, start: start + 2, end: close, line, ...(keep ? { keep } : {}) };
}

/**
 * The pieces of `block`'s inline content. Walks the tree with a stack, not recursion: emphasis can
 * nest as deep as a hostile file makes it. `tick` is called per node (cancellation checks).
 */
export function readInline(source: string, block: Parent, kind: BlockKind, tick: () => void): InlineRun {
  const run: InlineRun = { pieces: [], slots: [], labels: [], alts: [], titles: [] };
  const title = (
    node: Nodes & { title?: string | null },
    of: 'link' | 'image',
    at: { start: number; end: number },
  ): void => {
    const t = titleOf(source, node.title, at.start, at.end, node.position?.start.line ?? 0, true);
    if (t) run.titles.push({ ...t, of });
  };
  const blockStart = block.position?.start.offset;
  const stack: Array<PhrasingContent | (() => void)> = [];
  const pushChildren = (children: readonly PhrasingContent[]): void => {
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as PhrasingContent);
  };
  const code = (start: number, end: number): void => {
    if (end <= start) return;
    run.pieces.push({ text: source.slice(start, end), code: true });
    run.slots.push(undefined);
  };
  pushChildren(block.children as PhrasingContent[]);
  while (stack.length) {
    const node = stack.pop() as PhrasingContent | (() => void);
    if (typeof node === 'function') {
      node();
      continue;
    }
    tick();
    const at = offsets(node);
    if (!at) continue;
    switch (node.type) {
      case 'text': {
        const text = joinSoftBreaks(node.value);
        if (!text) break;
        const place: TextPlace = {
          ...(kind === 'cell' ? { cell: true } : {}),
          ...(kind !== 'cell' && (at.start === blockStart || startsLine(source, at.start))
            ? { lineStart: true }
            : {}),
        };
        run.pieces.push({ text });
        run.slots.push({ ...at, place });
        break;
      }
      case 'emphasis':
      case 'strong':
      case 'delete':
        pushChildren(node.children);
        break;
      case 'link':
        // An autolink (<https://…>, a bare www. or e-mail address) is its URL: not text.
        if (source[at.start] !== '[') code(at.start, at.end);
        else {
          title(node, 'link', at);
          pushChildren(node.children);
        }
        break;
      case 'linkReference': {
        const close = labelEnd(source, at.start + 1, at.end);
        const keep = close < 0 ? undefined : labelKeep(source, node, at.start + 1, close, at.end);
        if (keep) {
          const from = run.pieces.length;
          stack.push(() => run.labels.push({ ...keep, from, to: run.pieces.length }));
        }
        pushChildren(node.children);
        break;
      }
      case 'image':
      case 'imageReference': {
        code(at.start, at.end);
        const alt = altOf(source, node, at.start, at.end);
        if (alt) run.alts.push(alt);
        if (node.type === 'image') title(node, 'image', at);
        break;
      }
      case 'mdxJsxTextElement': {
        // An MDX element inline (<Badge tone="info">text</Badge>): its tags are code, its text is text.
        const first = node.children[0]?.position?.start.offset;
        const last = node.children[node.children.length - 1]?.position?.end.offset;
        if (first === undefined || last === undefined) code(at.start, at.end);
        else {
          code(at.start, first);
          stack.push(() => code(last, at.end));
          pushChildren(node.children);
        }
        break;
      }
      default:
        // inline code, hard breaks, inline HTML, footnote references, MDX {expressions}
        code(at.start, at.end);
    }
  }
  if (kind === 'heading') {
    const last = run.slots[run.slots.length - 1];
    if (last) last.place = { ...last.place, headingEnd: true };
  }
  return run;
}
