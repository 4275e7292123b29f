import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// xmllint (Debian's libxml2-utils) checking an XLIFF file against the OASIS schemas kept in
// test/xliff/fixtures, off the network: 1.2 transitional and strict (which import W3C's xml.xsd by
// its web address: a catalogue points xmllint at the copy beside them) and the 2.1 core (which
// imports the copy in its own folder), and the documents the schema tests export.

const XMLLINT = '/usr/bin/xmllint';
export const haveXmllint = fs.existsSync(XMLLINT);
if (!haveXmllint)
  console.warn(
    'xmllint is not installed (apt-get install -y libxml2-utils): the XLIFF schema tests are skipped',
  );
const FIXTURES = path.join(import.meta.dirname, 'fixtures');

const SCHEMAS = {
  transitional: 'xliff-core-1.2-transitional.xsd',
  strict: 'xliff-core-1.2-strict.xsd',
  // XLIFF 2.1's core schema keeps 2.0's name and namespace (its modules have their own).
  'xliff-2.1': 'xliff-2.1/xliff_core_2.0.xsd',
} as const;

/** xmllint's verdict on a file against one of the schemas: '' when it validates, else its errors. */
export function schemaErrors(file: string, schema: keyof typeof SCHEMAS): string {
  try {
    execFileSync(XMLLINT, ['--nonet', '--noout', '--schema', path.join(FIXTURES, SCHEMAS[schema]), file], {
      env: { ...process.env, XML_CATALOG_FILES: path.join(FIXTURES, 'catalog.xml') },
      stdio: 'pipe',
    });
    return '';
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err);
  }
}

/**
 * Sources with inline tags, placeholders, markup and names that need escaping; later.md's output is
 * removed by the tests (a unit without a target).
 */
export const SCHEMA_DOCUMENTS = {
  'guide & notes.md': '# Setup\n\nOpen the **lid** and run `make`.\n\nSee [the site](https://example.com).\n',
  'page.html': '<html><body><p>Press <b>Save</b> &amp; close.</p><p>Go<br>on.</p></body></html>\n',
  'messages.json': `${JSON.stringify({ hello: 'Hello {name}, you have %d messages.' }, null, 2)}\n`,
  'later.md': 'Not translated yet.\n',
};
