import fs from 'node:fs/promises';
import {
  isBilingual,
  openDocument,
  segmentText,
  type OpenedDocument,
  type Segment,
} from '../documents/index.js';

// The hard checks of a delivered document (docs/qa.md): an output that fails one is not delivered.
// They compare the output, read with the document layer, with the source it translates. Each check
// answers what a person would see on opening the file: nothing, a file that does not open, most of
// the document gone, or the source itself.

/** Which hard check an output failed (the state's error_kind is `qa-failed`, the reason names it). */
export type HardCheck = 'empty' | 'unreadable' | 'lost-segments' | 'untranslated';

export interface HardCheckFailure {
  check: HardCheck;
  /** For a person: what is wrong and where (segment, page). */
  reason: string;
}

/** An output with fewer than this share of its source's segments has lost segments. */
export const LOST_SEGMENTS_SHARE = 0.5;

const LETTER = /\p{L}/u;

interface Read {
  texts: string[];
  wheres: string[];
}

async function readSegments(doc: OpenedDocument): Promise<Read> {
  const texts: string[] = [];
  const wheres: string[] = [];
  for await (const s of doc.segments() as AsyncIterable<Segment>) {
    texts.push(segmentText(s));
    wheres.push(s.where);
  }
  return { texts, wheres };
}

/**
 * Runs the hard checks on `output` (read as `outputFormat`) against its `source` (read as
 * `sourceFormat`). Undefined: it passes. A source that is unknown or cannot be read (replaced since
 * its upload) leaves only the checks of the output alone (empty, unreadable).
 */
/** The texts a document carries as its translation (its targets, for XLIFF); undefined: unreadable. */
async function readTargets(doc: { path: string; format: string }): Promise<string[] | undefined> {
  try {
    return (await readSegments(await openDocument(doc.path, { format: doc.format, side: 'target' }))).texts;
  } catch {
    return undefined;
  }
}

export async function runHardChecks(
  source: { path: string; format: string } | undefined,
  output: { path: string; format: string },
): Promise<HardCheckFailure | undefined> {
  const { size } = await fs.stat(output.path);
  if (size === 0) return { check: 'empty', reason: 'the output is empty (0 bytes)' };
  let out: Read;
  try {
    out = await readSegments(await openDocument(output.path, { format: output.format, side: 'target' }));
  } catch (err) {
    return {
      check: 'unreadable',
      reason: `the output does not open as .${output.format}: ${(err as Error).message}`,
    };
  }
  if (!source) return undefined;
  let src: Read;
  try {
    src = await readSegments(await openDocument(source.path, { format: source.format }));
  } catch {
    return undefined;
  }
  const s = src.texts.length;
  const o = out.texts.length;
  if (s > 0 && o < s * LOST_SEGMENTS_SHARE) {
    const lostFrom = src.wheres[o] ?? `segment ${o + 1}`;
    return {
      check: 'lost-segments',
      reason: `the output has ${o} of the source's ${s} segments: lost from segment ${o + 1} (${lostFrom}) on`,
    };
  }
  const hasText = src.texts.some((t) => LETTER.test(t));
  // A bilingual source (XLIFF) may carry old targets: a copy of it leaves those unchanged, an echo
  // of the source puts the source text in them; either is no translation.
  const carried = hasText && o === s && isBilingual(source.format) ? await readTargets(source) : undefined;
  const same = (texts: string[]): boolean => texts.every((t, i) => t === out.texts[i]);
  if (hasText && o === s && (same(src.texts) || (carried !== undefined && same(carried))))
    return {
      check: 'untranslated',
      reason: `the output is the source unchanged: none of its ${s} segments is translated (from segment 1, ${src.wheres[0] ?? 'the start'})`,
    };
  return undefined;
}
