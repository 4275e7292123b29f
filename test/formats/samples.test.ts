// Every sample, translated through the engine: same structure, phrasebook hits exact, the rest
// pseudo-localised.
import { extname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, sampleFiles, workdir, type Workdir } from './helpers.js';
import { verifierFor } from './verify.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

describe('samples', () => {
  it('cover every supported format', () => {
    const exts = new Set(sampleFiles().map((f) => extname(f).slice(1)));
    for (const ext of [
      'txt',
      'html',
      'htm',
      'srt',
      'xlf',
      'xliff',
      'docx',
      'pptx',
      'xlsx',
      'pdf',
      'doc',
      'png',
      'jpg',
    ]) {
      expect(exts, ext).toContain(ext);
    }
  });

  for (const file of sampleFiles()) {
    const ext = extname(file).slice(1);
    const langs = ext === 'pdf' ? ['de'] : ['de', 'fr'];
    it(`${relative(SAMPLES, file)} -> ${langs.join(', ')}`, async () => {
      for (const lang of langs) {
        const { out, characters } = await w.translate(file, lang);
        await verifierFor(ext)(file, out, lang);
        if (['png', 'jpg', 'jpeg'].includes(ext)) expect(characters).toBe(0);
        else expect(characters).toBeGreaterThan(0);
      }
    });
  }

  it('report.pdf -> docx', async () => {
    const file = join(SAMPLES, 'office', 'report.pdf');
    const { out } = await w.translate(file, 'fr', { outExt: 'docx' });
    await verifierFor('pdf', 'docx')(file, out, 'fr');
  });
});
