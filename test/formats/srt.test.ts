import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentFormatError } from '../../src/local-service/engine/types.js';
import { SAMPLES, STYLE_24H_CURLY, workdir, type Workdir } from './helpers.js';
import { verifySrt } from './verify.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

describe('srt', () => {
  it('applies style rules to cue text only', async () => {
    const src = join(SAMPLES, 'video', 'welcome.srt');
    const { out } = await w.translate(src, 'de', { style: STYLE_24H_CURLY });
    await verifySrt(src, out, 'de');
    const result = await readFile(out, 'utf8');
    expect(result).toContain('15:30');
    expect(result).toContain('00:00:08,000 --> 00:00:11,000\r\n');
  });

  it('rejects a file that is not SubRip', async () => {
    const bad = await w.file('bad.srt', 'just some words\nwithout any timing\n');
    await expect(w.translate(bad, 'de')).rejects.toThrow(DocumentFormatError);
    await expect(w.translate(bad, 'de')).rejects.toThrow(/SubRip/);
  });
});
