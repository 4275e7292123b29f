import { TEXT_REQUEST_LIMITS, type UploadDocumentRequest } from '../../api/types.js';

// Text requests cut to the service's limits (TEXT_REQUEST_LIMITS: texts per request, body size), pure.
// The segments to send are taken in document order; a request holds one run of neighbouring segments,
// so that the segments around it, sent as `context` (not translated, not billed), are its own
// neighbours: a first translation sends the whole document 50 segments at a time, an edited paragraph
// goes alone, with the paragraphs around it when it is short or no sentence (needsContext).

export interface SegmentText {
  /** What is sent: the segment with its inline tags. */
  tagged: string;
  /** Its text for a person (and as context): the text pieces joined. */
  plain: string;
}

export interface TextBatch {
  /** Indexes (in `segments`) of the texts of this request, in order. */
  members: number[];
  /** The neighbouring segments' text (before the first, after the last), for `context`. */
  context: string;
  /** The same, neighbour by neighbour (empty: no member needs context). */
  neighbours: string[];
}

export interface BatchLimits {
  texts: number;
  /** Body bytes available to the texts and the context (the rest of the request set aside). */
  bytes: number;
  /** Characters of context taken from each side. */
  contextChars: number;
}

/** Bytes set aside for the request's other fields (languages, ids, flags). */
const REQUEST_OVERHEAD = 2_048;

export const DEFAULT_BATCH_LIMITS: BatchLimits = {
  texts: TEXT_REQUEST_LIMITS.texts,
  bytes: TEXT_REQUEST_LIMITS.bytes - REQUEST_OVERHEAD,
  contextChars: 1_000,
};

/**
 * A job's segments go to the run's pool as whole runs of neighbours: the pool cuts the requests. A
 * run that needs context (a short text, a label) takes the nearest neighbours, 250 characters each
 * side: a label's meaning is in the strings around it, not a page away.
 */
export const RUN_LIMITS: BatchLimits = {
  ...DEFAULT_BATCH_LIMITS,
  texts: Infinity,
  bytes: Infinity,
  contextChars: 250,
};

/** Characters of `context` one request carries at most (issue 51: bounded per request). */
export const CONTEXT_BOUND = 2 * DEFAULT_BATCH_LIMITS.contextChars;

/** The bytes a request's context may take (its characters bounded, 6 bytes each at most in JSON). */
export const CONTEXT_BYTES = CONTEXT_BOUND * 6 + 16;

/**
 * Whether a request of the run's pool holding `texts` texts of `bytes` bytes (CONTEXT_BYTES set
 * aside first) is full before a text of `next` bytes.
 */
export function requestFull(limits: BatchLimits, texts: number, bytes: number, next: number): boolean {
  return texts >= limits.texts || (texts > 0 && bytes + next > limits.bytes);
}

/** The requests a job's texts can share with other jobs' in the run's pool: same languages, same settings. */
export function poolKey(request: UploadDocumentRequest): string {
  return JSON.stringify([
    request.source_lang ?? '',
    request.target_lang,
    request.formality ?? '',
    request.glossary_id ?? '',
    request.style_id ?? '',
    request.segments?.settings ?? '',
  ]);
}

/**
 * The request's context: its parts' neighbouring texts, each once and none that the request itself
 * sends (translated with it, it needs no second upload), within CONTEXT_BOUND characters.
 */
export function contextOf(
  parts: ReadonlyArray<readonly string[]>,
  sent: Pick<ReadonlySet<string>, 'has'>,
): string {
  const out: string[] = [];
  let n = 0;
  for (const c of new Set(parts.flat())) {
    if (!c || sent.has(c)) continue;
    const room = CONTEXT_BOUND - n - (out.length > 0 ? 1 : 0);
    if (room <= 0) break;
    const piece = c.length > room ? c.slice(0, room) : c;
    out.push(piece);
    n += piece.length + (out.length > 1 ? 1 : 0);
  }
  return out.join('\n');
}

/** Bytes a string takes in the JSON body. */
export function jsonBytes(s: string): number {
  return Buffer.byteLength(JSON.stringify(s));
}

/**
 * The requests for the segments at `send` (positions in `segments`, the document's segments in
 * order; ascending): runs of neighbours,
 * each cut to the limits. A text too large for any request still gets one of its own (the service
 * then refuses it, and the job fails with its answer).
 */
export function batchTexts(
  segments: readonly SegmentText[],
  send: readonly number[],
  limits: BatchLimits = DEFAULT_BATCH_LIMITS,
): TextBatch[] {
  const batches: TextBatch[] = [];
  // The context of each side is cut to contextChars, so it never takes more than this many bytes.
  const contextBytes = Math.min(limits.bytes / 4, 2 * limits.contextChars * 6 + 16);
  let members: number[] = [];
  let bytes = 0;
  const close = () => {
    if (members.length === 0) return;
    const neighbours = members.some((i) => needsContext((segments[i] as SegmentText).plain))
      ? neighboursOf(segments, members, limits.contextChars)
      : [];
    batches.push({ members, context: neighbours.join('\n'), neighbours });
    members = [];
    bytes = 0;
  };
  for (const i of send) {
    const size = jsonBytes((segments[i] as SegmentText).tagged) + 1;
    const last = members[members.length - 1];
    const adjacent = last === undefined || i === last + 1;
    if (
      !adjacent ||
      members.length >= limits.texts ||
      (members.length > 0 && bytes + size + contextBytes > limits.bytes)
    )
      close();
    members.push(i);
    bytes += size;
  }
  close();
  return batches;
}

/** Characters below which a text is short, whatever it ends with (a label, a heading). */
const SHORT = 25;

/**
 * Whether a text's translation may change with its neighbours: a short one, or one without a
 * sentence of its own (a string key's label, a heading, a cell). A sentence of some length is
 * translated the same with or without them: its neighbours would be bytes uploaded for nothing.
 */
export function needsContext(plain: string): boolean {
  const text = plain.trim();
  return text.length < SHORT || !/[.!?…。！？]["'”’»)\]]*$/u.test(text);
}

/** The text before the first member and after the last, up to `chars` each side, at segment boundaries. */
function neighboursOf(segments: readonly SegmentText[], members: readonly number[], chars: number): string[] {
  const first = members[0] as number;
  const last = members[members.length - 1] as number;
  const before = nearestBefore((k) => segments[first - 1 - k]?.plain, chars);
  const after: string[] = [];
  for (let i = last + 1, n = 0; i < segments.length && n < chars; i++) {
    const t = (segments[i] as SegmentText).plain;
    after.push(afterPiece(t, n, chars));
    n += t.length;
  }
  return [...before, ...after];
}

/** The texts before a run, nearest first from `at(0)`, up to `chars`, in document order. */
function nearestBefore(at: (k: number) => string | undefined, chars: number): string[] {
  const before: string[] = [];
  let n = 0;
  for (let k = 0, t = at(0); t !== undefined && n < chars; t = at(++k)) {
    before.unshift(t.length + n > chars ? t.slice(t.length - (chars - n)) : t);
    n += t.length;
  }
  return before;
}

/** What a run's context takes of the neighbour `t` after it, `n` characters being taken already. */
function afterPiece(t: string, n: number, chars: number): string {
  return t.length + n > chars ? t.slice(0, chars - n) : t;
}

/** A run closed, waiting for the text after it. */
interface Closing<R> {
  run: R;
  before: string[];
  needs: boolean;
  after: string[];
  taken: number;
}

/**
 * The runs of batchTexts(segments, send, RUN_LIMITS) of a document read one segment at a time,
 * holding no segment beyond the context's reach: a run is started at its first text, and ended
 * with its neighbours once the text after it is read (or the document ends). Runs and neighbours
 * do not depend on how the document was cut for reading.
 */
export class RunCutter<R> {
  /** The last texts read, as far back as a run's context reaches. */
  private readonly window: string[] = [];
  private windowChars = 0;
  private open: Omit<Closing<R>, 'after' | 'taken'> | undefined;
  private readonly closing: Array<Closing<R>> = [];

  constructor(
    private readonly runs: { start(): R; end(run: R, neighbours: string[]): void },
    private readonly chars = RUN_LIMITS.contextChars,
  ) {}

  /** The document's next segment; `send`: it is sent. Returns the run it joins (sent only). */
  next(segment: SegmentText, send: boolean): R | undefined {
    const t = segment.plain;
    if (!send) this.closeRun();
    for (const c of this.closing) {
      if (c.taken >= this.chars) continue;
      c.after.push(afterPiece(t, c.taken, this.chars));
      c.taken += t.length;
    }
    // The run closed first has taken the most text after it: the runs end in order.
    while (this.closing[0] && this.closing[0].taken >= this.chars) this.end(this.closing.shift()!);
    if (send) {
      this.open ??= {
        run: this.runs.start(),
        before: nearestBefore((k) => this.window[this.window.length - 1 - k], this.chars),
        needs: false,
      };
      this.open.needs ||= needsContext(t);
    }
    this.window.push(t);
    this.windowChars += t.length;
    while (this.window.length > 1 && this.windowChars - (this.window[0] as string).length >= this.chars)
      this.windowChars -= (this.window.shift() as string).length;
    return send ? this.open?.run : undefined;
  }

  /** The document ended: every run ends with what it has. */
  finish(): void {
    this.closeRun();
    for (const c of this.closing.splice(0)) this.end(c);
  }

  private closeRun(): void {
    if (this.open) this.closing.push({ ...this.open, after: [], taken: 0 });
    this.open = undefined;
  }

  private end(c: Closing<R>): void {
    this.runs.end(c.run, c.needs ? [...c.before, ...c.after] : []);
  }
}
