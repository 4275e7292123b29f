import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { segmentsMapping } from '../segments/helpers.js';
import { haveToolkit } from '../segments/memory-helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { toolkitRewrite, withState } from './helpers.js';

// The export is XLIFF 1.2 as OASIS defines it: validated by xmllint (Debian's libxml2-utils)
// against the OASIS schemas shipped in test/xliff/fixtures, transitional and strict, with inline
// tags, placeholders, a unit without a target and names that need escaping; the file a CAT tool
// (translate-toolkit's XLIFF store) writes back still validates. The schemas import W3C's
// xml.xsd by its web address: a catalogue points xmllint at the copy beside them, off the network.

const XMLLINT = '/usr/bin/xmllint';
const haveXmllint = fs.existsSync(XMLLINT);
if (!haveXmllint)
  console.warn(
    'xmllint is not installed (apt-get install -y libxml2-utils): the XLIFF schema test is skipped',
  );
const FIXTURES = path.join(import.meta.dirname, 'fixtures');

/** xmllint's verdict on a file against one of the schemas: '' when it validates, else its errors. */
function schemaErrors(file: string, schema: 'transitional' | 'strict'): string {
  try {
    execFileSync(
      XMLLINT,
      ['--nonet', '--noout', '--schema', path.join(FIXTURES, `xliff-core-1.2-${schema}.xsd`), file],
      { env: { ...process.env, XML_CATALOG_FILES: path.join(FIXTURES, 'catalog.xml') }, stdio: 'pipe' },
    );
    return '';
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err);
  }
}

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.skipIf(!haveXmllint)('the XLIFF export against the XLIFF 1.2 schema', () => {
  it('validates (transitional and strict), and so does a CAT tool’s rewrite of it', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: {
        'guide & notes.md':
          '# Setup\n\nOpen the **lid** and run `make`.\n\nSee [the site](https://example.com).\n',
        'page.html': '<html><body><p>Press <b>Save</b> &amp; close.</p><p>Go<br>on.</p></body></html>\n',
        'messages.json': `${JSON.stringify({ hello: 'Hello {name}, you have %d messages.' }, null, 2)}\n`,
        'later.md': 'Not translated yet.\n',
      },
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
