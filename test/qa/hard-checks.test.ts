import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, segmentText, type Segment } from '../../src/documents/index.js';
import { runHardChecks } from '../../src/qa/hard-checks.js';

const SAMPLES = path.resolve(import.meta.dirname, '../../samples');
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-qa-'));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** Writes `source` translated (every text piece upper-cased and marked) to `out`. */
async function translate(source: string, out: string, format: string): Promise<void> {
  const doc = await openDocument(source, { format });
  await doc.write(
    (s: Segment) => s.pieces.map((p) => (p.code ? p.text : `[de] ${p.text.toUpperCase()}`)),
    { path: out, format },
    { targetLang: 'de' },
  );
}

describe('hard checks of bilingual documents (XLIFF)', () => {
  for (const name of ['app.xliff', 'strings.xlf']) {
    it(`${name}: a translated file passes (its targets are read, not its sources); the source returned unchanged is untranslated`, async () => {
      const source = path.join(SAMPLES, 'localization', name);
      const format = path.extname(name).slice(1);
      const out = path.join(dir, `de-${name}`);
      await translate(source, out, format);

      const targets: string[] = [];
      for await (const s of (await openDocument(out, { format, side: 'target' })).segments())
        targets.push(segmentText(s));
      expect(targets.length).toBeGreaterThan(0);
      expect(targets.every((t) => t.startsWith('[de] '))).toBe(true);

      expect(await runHardChecks({ path: source, format }, { path: out, format })).toBeUndefined();
      const copy = path.join(dir, `copy-${name}`);
      await fs.copyFile(source, copy);
      expect(await runHardChecks({ path: source, format }, { path: copy, format })).toMatchObject({
        check: 'untranslated',
      });
    });
  }
});
