import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { segmentsMapping } from '../segments/helpers.js';
import { haveToolkit } from '../segments/memory-helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { toolkitRewrite, withState } from './helpers.js';
import { haveXmllint, SCHEMA_DOCUMENTS, schemaErrors } from './schema-check.js';

// The export is XLIFF 1.2 as OASIS defines it: validated by xmllint (./schema-check.ts) against the
// OASIS schemas shipped in test/xliff/fixtures, transitional and strict, with inline tags,
// placeholders, a unit without a target and names that need escaping; the file a CAT tool
// (translate-toolkit's XLIFF store) writes back still validates.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.skipIf(!haveXmllint)('the XLIFF export against the XLIFF 1.2 schema', () => {
  it('validates (transitional and strict), and so does a CAT tool’s rewrite of it', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: SCHEMA_DOCUMENTS,
    });
    expect((await fx.sync()).failed).toEqual([]);
    // One output gone: its unit has no target.
    fs.rmSync(path.join(fx.dir, 'out/de/later.md'));
    const f = fx;
    const xlf = path.join(f.dir, 'de.xlf');
    const loaded = await f.load();
    await withState(f, (o) => exportXliff(loaded, o.state, o.state.memory!, { out: xlf, only: 'all' }));
    const text = f.read('de.xlf');
    expect(text).toContain('<g id=');
    expect(text).toContain('<x id=');
    expect(text).toMatch(/<source>Not translated yet\.<\/source>\s*<note/);
    expect(schemaErrors(xlf, 'transitional')).toBe('');
    expect(schemaErrors(xlf, 'strict')).toBe('');

    // The check is real: a state XLIFF does not know is refused.
    const bad = path.join(f.dir, 'bad.xlf');
    fs.writeFileSync(bad, text.replace('state="needs-review-translation"', 'state="machine"'));
    expect(schemaErrors(bad, 'transitional')).toMatch(/'machine' is not a valid value/);

    if (haveToolkit) {
      toolkitRewrite(xlf, { Setup: 'Einrichtung' });
      expect(f.read('de.xlf')).toContain('Einrichtung');
      expect(schemaErrors(xlf, 'transitional')).toBe('');
    }
  });
});
