import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkOutput } from '../../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS } from '../../src/qa/checks.js';
import { spoilOutput } from '../../src/local-service/bad-outputs.js';
import { BAD_OUTPUT_KINDS } from '../../src/local-service/bad-output-kinds.js';
import { createEngine } from '../../src/local-service/engine/index.js';
import { SAMPLE_DOCUMENTS, SAMPLES } from '../helpers/samples.js';

// Every sample format, translated by the local service's engine and then spoilt by each of its
// bad-output faults (docs/local-service.md): the checks catch each with the right reason, and pass
// the good translation.

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-qa-bad-'));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));
const engine = createEngine({ phrasebookPath: path.join(SAMPLES, 'phrasebook.yaml') });

const isImage = (f: string) => /\.(png|jpg)$/.test(f);

/** The check that must catch each fault (images have no text: only a cut file is caught). */
function expected(kind: (typeof BAD_OUTPUT_KINDS)[number], file: string): string[] | undefined {
  switch (kind) {
    case 'untranslated':
      return isImage(file) ? undefined : ['untranslated'];
    case 'truncated':
      return /\.(txt|srt|htm|html)$/.test(file) ? ['lost-segments'] : ['unreadable'];
    case 'dropped-segments':
      return isImage(file) ? undefined : ['lost-segments'];
    case 'wrong-language':
      return isImage(file) ? undefined : ['language'];
  }
}

async function translated(
  file: string,
  name: string,
): Promise<{ source: string; out: string; ext: string; outExt: string }> {
  const ext = path.extname(file).slice(1);
  const outExt = ext === 'doc' || ext === 'pdf' ? 'docx' : ext;
  const source = path.join(SAMPLES, file);
  const out = path.join(dir, `${name}-${path.basename(file)}.${outExt}`);
  await engine.translateDocument(
    { path: source, ext, filename: path.basename(file) },
    { path: out, ext: outExt },
    { targetLang: 'de', sourceLang: 'en' },
  );
  return { source, out, ext, outExt };
}

describe('the output checks and the local service bad outputs, every format', () => {
  for (const file of SAMPLE_DOCUMENTS)
    it(`${file}: the good translation passes; each bad output fails with its reason`, async () => {
      const good = await translated(file, 'good');
      const check = (t: typeof good) =>
        checkOutput({
          source: { path: t.source, format: t.ext },
          output: { path: t.out, format: t.outExt },
          targetLang: 'de',
          sourceLang: 'en',
          settings: DEFAULT_QA_SETTINGS,
        });
      expect(await check(good)).toEqual({ outcome: 'pass', findings: [] });
      for (const kind of BAD_OUTPUT_KINDS) {
        const bad = await translated(file, kind);
        await spoilOutput(kind, { path: bad.source, ext: bad.ext }, { path: bad.out, ext: bad.outExt }, 'de');
        const result = await check(bad);
        const want = expected(kind, file);
        if (!want) {
          expect(result.outcome, `${kind}`).not.toBe('failed');
          continue;
        }
        expect(result.outcome, `${kind}: ${JSON.stringify(result.findings)}`).toBe('failed');
        expect(result.findings.map((f) => f.check)).toEqual(expect.arrayContaining(want));
      }
    });
});
