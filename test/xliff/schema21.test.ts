import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { segmentsMapping } from '../segments/helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { withState } from './helpers.js';
import { haveXmllint, SCHEMA_DOCUMENTS, schemaErrors } from './schema-check.js';

// `xliff export --xliff 2.1` is XLIFF 2.1 as OASIS defines it: every file it writes validates with
// xmllint against the XLIFF 2.1 core schema (test/xliff/fixtures/xliff-2.1, the OASIS XLIFF TC's
// copy), with inline <pc>/<ph>, a unit without a target, names that need escaping and a file per
// language; an export with nothing in it writes no file (2.x has a <file> with a unit at least).

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.skipIf(!haveXmllint)('the XLIFF 2.1 export against the XLIFF 2.1 core schema', () => {
  it('validates per language; an export with no unit writes no file', async () => {
    fx = await createFixture({
      manifest: { mappings: [{ ...segmentsMapping(), targets: [{ lang: 'de' }, { lang: 'pt-br' }] }] },
      files: SCHEMA_DOCUMENTS,
    });
    const synced = await fx.sync();
    expect(synced.failed).toEqual([]);
    // One output gone: its unit has no target.
    fs.rmSync(path.join(fx.dir, 'out/de/later.md'));
    const f = fx;
    const loaded = await f.load();
    const exportTo = (out: string, since?: string) =>
      withState(f, (o) =>
        exportXliff(loaded, o.state, o.state.memory!, {
          out,
          only: 'all',
          xliff: '2.1',
          ...(since ? { since } : {}),
        }),
      );
    const all = await exportTo(path.join(f.dir, 'xliff') + '/');
    expect(all.files.map((p) => path.basename(p))).toEqual(['de.xlf', 'pt-br.xlf']);
    for (const file of all.files) expect(schemaErrors(file, 'xliff-2.1'), file).toBe('');
    const de = f.read('xliff/de.xlf');
    expect(de).toMatch(/<pc id="\d+">lid<\/pc>/);
    expect(de).toMatch(/<ph id="\d+"\/>/);
    expect(de).toMatch(/<segment state="initial">\s*<source>Not translated yet\.<\/source>\s*<\/segment>/);
    expect(f.read('xliff/pt-br.xlf')).toContain('trgLang="pt-BR"');

    // The check is real: a state XLIFF 2 does not know, and a unit without its id, are refused.
    const bad = path.join(f.dir, 'bad.xlf');
    fs.writeFileSync(bad, de.replace('<segment state="translated">', '<segment state="machine">'));
    expect(schemaErrors(bad, 'xliff-2.1')).toMatch(/'machine' is not an element of the set/);
    fs.writeFileSync(bad, de.replace(/<unit id="[^"]*"/, '<unit'));
    expect(schemaErrors(bad, 'xliff-2.1')).toMatch(/The attribute 'id' is required/);

    // Nothing delivered since the last run: no unit, no file (an <xliff> without <file> is invalid).
    const none = await exportTo(path.join(f.dir, 'since') + '/', String(synced.runId));
    expect(none.units).toBe(0);
    for (const file of none.files) expect(schemaErrors(file, 'xliff-2.1'), file).toBe('');
    expect(none.files).toEqual([]);
    expect(none.empty.map((p) => path.basename(p))).toEqual(['de.xlf', 'pt-br.xlf']);
    expect(fs.existsSync(path.join(f.dir, 'since/de.xlf'))).toBe(false);
  });
});
