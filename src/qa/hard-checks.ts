import fs from 'node:fs/promises';
import { isBilingual, type FormatOptions } from '../documents/index.js';
import type { HardCheck } from './checks.js';
import { imageCutShort } from './image-check.js';
import { readForChecks, type ReadDocument, type ReadSegment } from './read.js';
import { readSourceForTarget } from './source-for-target.js';

// The hard checks of a delivered document (docs/qa.md): an output that fails one is not delivered.
// They compare the output, read with the document layer, with the source it translates. Each check
// answers what a person would see on opening the file: nothing, a file that does not open, most of
// the document gone, or the source itself.

export type { HardCheck } from './checks.js';

export interface HardCheckFailure {
  check: HardCheck;
  /** For a person: what is wrong and where (segment, page). */
  reason: string;
}

/**
 * An output with fewer than this share of its source's segments has lost segments. A format whose
 * writer keeps the document as it is (txt, srt, html, xliff, docx, pptx, xlsx: one translated
 * segment per source segment) may lose few (a cut file ends with a tenth gone); one rebuilt from the
 * text (a pdf, a doc made docx) may merge or split lines, and only a loss of half counts.
 */
export const LOST_SEGMENTS_SHARE = 0.5;
export const LOST_SEGMENTS_SHARE_KEPT_LAYOUT = 0.9;

const LETTER = /\p{L}/u;

export interface DocumentRef {
  path: string;
  format: string;
  /** How it is read, from its mapping (a CSV file's columns). */
  read?: FormatOptions | undefined;
}

/**
 * The output read for the checks (its text in `targetLang` where a file holds several languages),
 * or the hard check it already fails (empty, unreadable).
 */
export async function readOutput(
  output: DocumentRef,
  targetLang = '',
): Promise<ReadDocument | { failure: HardCheckFailure }> {
  const { size } = await fs.stat(output.path);
  if (size === 0) return { failure: { check: 'empty', reason: 'the output is empty (0 bytes)' } };
  const cut = await imageCutShort(output.path, output.format);
  if (cut) return { failure: { check: 'unreadable', reason: `the output does not open: ${cut}` } };
  try {
    return await readForChecks(output.path, output.format, 'target', targetLang, output.read);
  } catch (err) {
    return {
      failure: {
        check: 'unreadable',
        reason: `the output does not open as .${output.format}: ${(err as Error).message}`,
      },
    };
  }
}

/**
 * The source read for the checks of `output` in `targetLang` (a string file laid out in the target's
 * plural forms: ./source-for-target.ts); undefined when it cannot be read (replaced since its upload).
 */
export async function readSource(
  source: DocumentRef,
  output: DocumentRef,
  targetLang: string,
): Promise<ReadDocument | undefined> {
  try {
    return await readSourceForTarget(source, output.format, targetLang);
  } catch {
    return undefined;
  }
}

/**
 * The hard checks that compare the output `output` with its source `source` (read from `ref`): lost
 * segments, the source unchanged. Undefined: it passes.
 */
export async function compareWithSource(
  ref: DocumentRef,
  source: ReadDocument,
  output: ReadDocument,
): Promise<HardCheckFailure | undefined> {
  const src = source.segments;
  const out = output.segments;
  const s = src.length;
  const o = out.length;
  const share =
    output.keepsLayout && source.format === output.format
      ? LOST_SEGMENTS_SHARE_KEPT_LAYOUT
      : LOST_SEGMENTS_SHARE;
  if (s > 0 && o < s * share) {
    const lostFrom = src[o]?.where ?? `segment ${o + 1}`;
    return {
      check: 'lost-segments',
      reason: `the output has ${o} of the source's ${s} segments: lost from segment ${o + 1} (${lostFrom}) on`,
    };
  }
  const hasText = src.some((t) => LETTER.test(t.text));
  // A bilingual source (XLIFF) may carry old targets: a copy of it leaves those unchanged, an echo
  // of the source puts the source text in them; either is no translation.
  const carried =
    hasText && o === s && isBilingual(ref.format)
      ? (await readForChecks(ref.path, ref.format, 'target', undefined, ref.read).catch(() => undefined))
          ?.segments
      : undefined;
  const same = (texts: readonly ReadSegment[]): boolean => texts.every((t, i) => t.text === out[i]?.text);
  if (hasText && o === s && (same(src) || (carried !== undefined && same(carried))))
    return {
      check: 'untranslated',
      reason: `the output is the source unchanged: none of its ${s} segments is translated (from segment 1, ${src[0]?.where ?? 'the start'})`,
    };
  return undefined;
}

/**
 * Runs the hard checks on `output` (in `targetLang`, '' when unknown) against its `source`.
 * Undefined: it passes. A source that is unknown or cannot be read (replaced since its upload)
 * leaves only the checks of the output alone (empty, unreadable).
 */
export async function runHardChecks(
  source: DocumentRef | undefined,
  output: DocumentRef,
  targetLang = '',
): Promise<HardCheckFailure | undefined> {
  const out = await readOutput(output, targetLang);
  if ('failure' in out) return out.failure;
  const src = source ? await readSource(source, output, targetLang) : undefined;
  return source && src ? compareWithSource(source, src, out) : undefined;
}
