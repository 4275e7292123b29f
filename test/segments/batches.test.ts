import { describe, expect, it } from 'vitest';
import { TEXT_REQUEST_LIMITS } from '../../src/api/types.js';
import {
  batchTexts,
  contextOf,
  CONTEXT_BOUND,
  DEFAULT_BATCH_LIMITS,
  jsonBytes,
  needsContext,
  RUN_LIMITS,
  RunCutter,
  type SegmentText,
} from '../../src/sync/segments/batches.js';

// Text requests cut to the service's limits, neighbours kept together with their context.

const seg = (text: string): SegmentText => ({ tagged: text, plain: text });
const doc = (n: number, text = (i: number) => `Paragraph ${i}.`) =>
  Array.from({ length: n }, (_, i) => seg(text(i)));
const all = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('batchTexts', () => {
  it('sends a whole document 50 texts at a time', () => {
    const batches = batchTexts(doc(120), all(120));
    expect(batches.map((b) => b.members.length)).toEqual([50, 50, 20]);
    expect(batches.flatMap((b) => b.members)).toEqual(all(120));
  });

  it('keeps each request within 128 KiB with its context', () => {
    const long = doc(200, (i) => `${i} ${'é'.repeat(3_000)}`);
    const batches = batchTexts(long, all(200));
    for (const b of batches) {
      const body = JSON.stringify({
        text: b.members.map((i) => long[i]!.tagged),
        target_lang: 'DE',
        context: b.context,
      });
      expect(Buffer.byteLength(body)).toBeLessThan(TEXT_REQUEST_LIMITS.bytes);
      expect(b.members.length).toBeGreaterThan(0);
    }
    expect(batches.flatMap((b) => b.members)).toEqual(all(200));
    expect(jsonBytes(long[0]!.tagged) * 50).toBeGreaterThan(DEFAULT_BATCH_LIMITS.bytes);
  });

  it('sends separate edits apart, each with its own neighbours as context', () => {
    const d = doc(10);
    const batches = batchTexts(d, [2, 3, 7]);
    expect(batches.map((b) => b.members)).toEqual([[2, 3], [7]]);
    expect(batches[0]!.context).toBe(
      'Paragraph 0.\nParagraph 1.\nParagraph 4.\nParagraph 5.\nParagraph 6.\nParagraph 7.\nParagraph 8.\nParagraph 9.',
    );
    expect(batches[1]!.context.split('\n')).toContain('Paragraph 6.');
    expect(batches[1]!.context.split('\n')).toContain('Paragraph 8.');
  });

  it('takes at most contextChars of neighbouring text on each side', () => {
    const d = doc(5, () => 'x'.repeat(600));
    const [b] = batchTexts(d, [2], { ...DEFAULT_BATCH_LIMITS, contextChars: 1_000 });
    expect(b!.context.replace(/\n/g, '').length).toBe(2_000);
  });

  it('sends neighbours only with a short text or one without a sentence of its own', () => {
    const d = doc(6, (i) => (i === 3 ? 'Save' : `The pump number ${i} starts when the tank is full.`));
    const [sentence] = batchTexts(d, [1]);
    expect(sentence!.context).toBe('');
    const [label] = batchTexts(d, [3]);
    expect(label!.neighbours).toContain(d[2]!.plain);
    expect(label!.neighbours).toContain(d[4]!.plain);
    for (const t of ['Save', 'Settings of the account', 'Item 3 of screen 4', 'Quarterly update'])
      expect(needsContext(t), t).toBe(true);
    expect(needsContext('Choose how the screen shows the item before you save it.')).toBe(false);
  });
});

describe("a request's context", () => {
  it('holds each neighbour once, none that the request sends itself, within its bound', () => {
    expect(
      contextOf(
        [
          ['Alpha.', 'Beta.'],
          ['Beta.', 'Gamma.'],
        ],
        new Set(['Gamma.']),
      ),
    ).toBe('Alpha.\nBeta.');
    const many = Array.from({ length: 100 }, (_, i) => [`${i} ${'x'.repeat(100)}`]);
    expect(contextOf(many, new Set()).length).toBeLessThanOrEqual(CONTEXT_BOUND);
  });
});

describe('RunCutter', () => {
  it('cuts a document read a segment at a time into the runs and neighbours of batchTexts', () => {
    // Labels (which need neighbours), sentences and long texts, some sent, some not.
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    const texts = ['Save', 'Colour', 'Open the lid now, then wait.', `${'Long text. '.repeat(40)}`, ''];
    for (let round = 0; round < 50; round++) {
      const segments = doc(1 + random(200), (i) => `${texts[random(texts.length)]}${i % 3 ? '' : i}`);
      const send = all(segments.length).filter(() => random(4) > 0);
      const runs: Array<{ members: number[]; neighbours?: string[] }> = [];
      const cutter = new RunCutter<{ members: number[]; neighbours?: string[] }>({
        start: () => {
          const run = { members: [] };
          runs.push(run);
          return run;
        },
        end: (run, neighbours) => (run.neighbours = neighbours),
      });
      const sent = new Set(send);
      for (const [i, s] of segments.entries()) cutter.next(s, sent.has(i))?.members.push(i);
      cutter.finish();
      const expected = batchTexts(segments, send, RUN_LIMITS).map((b) => ({
        members: b.members,
        neighbours: b.neighbours,
      }));
      expect(runs, `round ${round}`).toEqual(expected);
    }
  });
});
