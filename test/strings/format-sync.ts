// What the tests of issue 49's string formats (TOML, .resx, Laravel, CSV) share beyond
// string-file.ts: a file synced to German through the local service, compared with its committed
// golden output, then edited to see how many values are sent again; and the output checks of a
// written file against its source.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { checkOutput } from '../../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS } from '../../src/qa/checks.js';
import { createFixture, type Fixture } from '../sync/fixture.js';

export const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');

export interface SyncedFile {
  /** The source file's name, synced from src/ui/<name>. */
  name: string;
  /** Its path in FIXTURES, when not `name`. */
  from?: string;
  /** The output path (under the fixture folder) of the German translation. */
  output: string;
  /** The committed golden German output, in FIXTURES. */
  golden: string;
  /** The source after an edit of `edited` values. */
  edit: (source: string) => string;
  edited: number;
  /** More of the mapping (a CSV file's columns). */
  mapping?: Record<string, unknown>;
}

/** Texts sent to the service's text endpoint since `mark`. */
export function textsSent(fx: Fixture, mark: number): number {
  return fx.service
    .requests()
    .slice(mark)
    .filter((r) => r.path === '/v2/translate' && r.status === 200 && r.text)
    .reduce((sum, r) => sum + r.text!.texts, 0);
}

/**
 * Syncs FIXTURES/<name> to German with the local service: the output is the golden file; an edit
 * sends only the changed values. Closes its fixture.
 */
export async function syncGoldenThenEdit(file: SyncedFile): Promise<void> {
  const src = await fs.readFile(path.join(FIXTURES, file.from ?? file.name), 'utf8');
  const fx = await createFixture({
    manifest: {
      mappings: [
        {
          name: 'ui',
          source: 'src/ui',
          include: [file.name],
          output: file.output,
          method: 'segments',
          source_lang: 'en',
          targets: [{ lang: 'de' }],
          ...file.mapping,
        },
      ],
    },
    files: { [`ui/${file.name}`]: src },
  });
  try {
    expect((await fx.sync()).failed).toEqual([]);
    const out = fx.read(file.output.replace(/\{lang(?:_bcp47)?\}/, 'de'));
    // UPDATE_GOLDEN=1 writes the golden file anew (to be read before it is committed).
    if (process.env.UPDATE_GOLDEN) await fs.writeFile(path.join(FIXTURES, file.golden), out);
    expect(out).toBe(await fs.readFile(path.join(FIXTURES, file.golden), 'utf8'));
    const mark = fx.mark();
    fx.write(`src/ui/${file.name}`, file.edit(src));
    expect((await fx.sync()).failed).toEqual([]);
    expect(textsSent(fx, mark)).toBe(file.edited);
  } finally {
    await fx.close();
  }
}

/** The output checks of `output` (a translation into German) against FIXTURES/<source>. */
export function checkAgainst(source: string, output: string, format: string) {
  return checkOutput({
    source: { path: path.join(FIXTURES, source), format },
    output: { path: output, format },
    targetLang: 'de',
    sourceLang: 'en',
    settings: DEFAULT_QA_SETTINGS,
  });
}

/** The findings of a check that name `token` (a placeholder, quoted as the checks quote it). */
export const findingsAbout = (r: { findings: Array<{ message: string }> }, token: string) =>
  r.findings.filter((f) => f.message.includes(`"${token}"`));

/** Debian's Python, whose own readers (csv, tomllib) read outputs back in the tests. */
export const HAS_PYTHON = existsSync('/usr/bin/python3');

/** What FIXTURES/python/<script> prints (JSON) of `file`: a format read by Python's own reader. */
export const pythonReads = (script: string, file: string): unknown =>
  JSON.parse(
    execFileSync('/usr/bin/python3', [path.join(FIXTURES, 'python', script), file], { encoding: 'utf8' }),
  );
