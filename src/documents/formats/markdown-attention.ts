// Emphasis and strong emphasis (`*`, `_`) for the Markdown parser, resolved in time that grows with
// the paragraph rather than with its square. micromark's own construct (micromark-core-commonmark
// attention.js) splices every matched pair into the paragraph's whole event list and looks for each
// closer's opener back to the paragraph's start, so thousands of flat `*a*` or unmatched `a_` in
// one paragraph took seconds. This is the same construct with the same tokens and the same rules
// (CommonMark's "process emphasis", as micromark applies it), its resolver keeping the events written
// so far in a list that only grows at its end and the openers still open on a stack per marker.
import type {
  Code,
  State,
  Construct,
  Event,
  Extension,
  Resolver,
  Token,
  TokenizeContext,
  Tokenizer,
} from 'micromark-util-types';

const STAR = 42;
const UNDERSCORE = 95;

/** micromark-util-classify-character: 1 whitespace (or the edge), 2 punctuation, else undefined. */
function classify(code: Code): 1 | 2 | undefined {
  if (code === null || code < 0 || code === 32 || /\s/.test(String.fromCharCode(code))) return 1;
  if (/\p{P}|\p{S}/u.test(String.fromCharCode(code))) return 2;
  return undefined;
}

/** micromark-util-resolve-all: each resolver of `constructs` once, in order. */
function resolveAll(
  constructs: ReadonlyArray<Partial<Construct>>,
  events: Event[],
  context: TokenizeContext,
): Event[] {
  const called: Resolver[] = [];
  for (const c of constructs)
    if (c.resolveAll && !called.includes(c.resolveAll)) {
      events = c.resolveAll(events, context);
      called.push(c.resolveAll);
    }
  return events;
}

const tokenizeAttention: Tokenizer = function (effects, ok) {
  const markers = this.parser.constructs.attentionMarkers.null ?? [];
  const previous = this.previous;
  const before = classify(previous);
  let marker: Code;
  const inside: State = (code) => {
    if (code === marker) {
      effects.consume(code);
      return inside;
    }
    const token = effects.exit('attentionSequence');
    const after = classify(code);
    const open =
      !after ||
      (after === 2 && before) ||
      (code !== null && markers.includes(code) && code !== STAR && code !== UNDERSCORE);
    const close =
      !before ||
      (before === 2 && after) ||
      (previous !== null && markers.includes(previous) && previous !== STAR && previous !== UNDERSCORE);
    token._open = Boolean(marker === STAR ? open : open && (before || !close));
    token._close = Boolean(marker === STAR ? close : close && (after || !open));
    return ok(code);
  };
  return (code): State | undefined => {
    marker = code;
    effects.enter('attentionSequence');
    return inside(code);
  };
};

const length = (t: Token): number => t.end.offset - t.start.offset;
const markerOf = (t: Token, context: TokenizeContext): number => context.sliceSerialize(t).charCodeAt(0);

function moved(point: Token['start'], offset: number): Token['start'] {
  return {
    ...point,
    column: point.column + offset,
    offset: point.offset + offset,
    _bufferIndex: point._bufferIndex + offset,
  };
}

/**
 * Pairs closers with openers as micromark's resolveAllAttention does. `out` holds the events
 * resolved so far; `open` the places in `out` of the exits of openers not yet used, by marker.
 */
const resolveAllAttention: Resolver = (events, context) => {
  const out: Event[] = [];
  const open = new Map<number, number[]>();
  for (const event of events) {
    out.push(event);
    const token = event[1];
    if (event[0] !== 'exit' || token.type !== 'attentionSequence') continue;
    const marker = markerOf(token, context);
    const stack = open.get(marker) ?? [];
    open.set(marker, stack);
    // The closer is the last two events of `out`; matched again while some of it is left.
    while (token._close && length(token) > 0) {
      let s = stack.length;
      while (s-- > 0) {
        const opener = (out[stack[s]!] as Event)[1];
        // The rule of 3 (CommonMark): `*a**b*` does not pair `*` with `**`.
        const skip =
          (opener._close || token._open) && length(token) % 3 && !((length(opener) + length(token)) % 3);
        if (!skip) break;
      }
      if (s < 0) break;
      const at = stack[s]!;
      // Openers after it, of either marker, are inside the group.
      for (const other of open.values()) while ((other[other.length - 1] ?? -1) > at) other.pop();
      const opener = (out[at] as Event)[1];
      const use = length(opener) > 1 && length(token) > 1 ? 2 : 1;
      const strong = use > 1;
      const openingSequence: Token = {
        type: strong ? 'strongSequence' : 'emphasisSequence',
        start: moved(opener.end, -use),
        end: { ...opener.end },
      };
      const closingSequence: Token = {
        type: strong ? 'strongSequence' : 'emphasisSequence',
        start: { ...token.start },
        end: moved(token.start, use),
      };
      const text: Token = {
        type: strong ? 'strongText' : 'emphasisText',
        start: { ...opener.end },
        end: { ...token.start },
      };
      const group: Token = {
        type: strong ? 'strong' : 'emphasis',
        start: { ...openingSequence.start },
        end: { ...closingSequence.end },
      };
      opener.end = { ...openingSequence.start };
      token.start = { ...closingSequence.end };
      // Openers inside the group are text now (the inner resolve makes them data).
      const inner = resolveAll(
        context.parser.constructs.insideSpan.null ?? [],
        out.slice(at + 1, out.length - 2),
        context,
      );
      out.length = at - 1;
      if (length(opener)) out.push(['enter', opener, context], ['exit', opener, context]);
      else stack.pop();
      out.push(
        ['enter', group, context],
        ['enter', openingSequence, context],
        ['exit', openingSequence, context],
      );
      out.push(['enter', text, context]);
      for (const e of inner) out.push(e);
      out.push(
        ['exit', text, context],
        ['enter', closingSequence, context],
        ['exit', closingSequence, context],
      );
      out.push(['exit', group, context]);
      if (length(token)) out.push(['enter', token, context], ['exit', token, context]);
    }
    if (token._open && length(token) > 0) stack.push(out.length - 1);
  }
  for (const e of out) if (e[1].type === 'attentionSequence') e[1].type = 'data';
  // In place: micromark's subtokenizer holds the array the tokenizer started with.
  events.length = out.length;
  out.forEach((e, i) => (events[i] = e));
  return events;
};

const attention: Construct = {
  name: 'attentionLinear',
  tokenize: tokenizeAttention,
  resolveAll: resolveAllAttention,
};

/** The micromark extension: micromark's attention construct replaced by this one. */
export const linearAttention: Extension = {
  disable: { null: ['attention'] },
  text: { [STAR]: attention, [UNDERSCORE]: attention },
  insideSpan: { null: [attention] },
};
