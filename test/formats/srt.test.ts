import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentFormatError } from '../../src/service/engine/types.js';
import { parseSrt } from '../../src/service/formats/srt.js';
import { SAMPLES, STYLE_24H_CURLY, checkSegment, workdir, type Workdir } from './helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

describe('srt', () => {
  it('translates cue text only: numbers, timings and separators stay byte-identical', async () => {
    const src = join(SAMPLES, 'video', 'welcome.srt');
    const source = await readFile(src, 'utf8');
    const { out } = await w.translate(src, 'de', { style: STYLE_24H_CURLY });
    const result = await readFile(out, 'utf8');
    const a = parseSrt(source);
    const b = parseSrt(result);
    expect(b.cues).toHaveLength(a.cues.length);
    expect(b.parts).toHaveLength(a.parts.length);
    const textLines = new Set(a.cues.flatMap((c) => c.textLines));
    a.parts.forEach((part, i) => {
      if (textLines.has(i)) expect(checkSegment(part, b.parts[i] as string, 'de')).toBeUndefined();
      else expect(b.parts[i]).toBe(part);
    });
    expect(result).toContain('15:30');
  });

  it('rejects a file that is not SubRip', async () => {
    const bad = await w.file('bad.srt', 'just some words\nwithout any timing\n');
    await expect(w.translate(bad, 'de')).rejects.toThrow(DocumentFormatError);
    await expect(w.translate(bad, 'de')).rejects.toThrow(/SubRip/);
  });
});
