import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { supportedFormats } from '../../src/documents/format-registry.js';
import { typescriptSources } from '../helpers/source-files.js';

// What a format is lives in one record per extension (src/documents/format-registry.ts), read by
// pricing, pre-flight, the planner, QA, review and the local service. Checked on the source: a new
// table of formats elsewhere, or a digest that parses a document its own way, fails here with the
// file named.

const SRC = path.resolve(__dirname, '../../src');
const REGISTRY = 'documents/format-registry.ts';

const sources = () => typescriptSources(SRC);

/** A format's reader knows its own format; everything else asks the registry. */
const outsideReaders = () =>
  sources().filter(({ file }) => file !== REGISTRY && !file.startsWith('documents/formats/'));

const EXTENSIONS = supportedFormats();
const quotedExtension = new RegExp(`'(${EXTENSIONS.join('|')})'|\\b(${EXTENSIONS.join('|')})\\s*:`, 'g');

describe('one table of formats', () => {
  it('no list or map of three or more formats outside the registry', () => {
    const tables: string[] = [];
    for (const { file, code } of outsideReaders())
      // A command-line option's values (`report --format table|csv|json|html`) name what the
      // command prints, not document formats: they are left out of the search.
      for (const literal of code
        .replace(/\.choices\(\[[^\]]*\]\)/g, '')
        .matchAll(/\[[^[\]]*\]|\{[^{}]*\}/g)) {
        const named = new Set([...literal[0].matchAll(quotedExtension)].map((m) => m[1] ?? m[2]));
        if (named.size >= 3) tables.push(`${file}: ${[...named].join(', ')}`);
      }
    expect(tables).toEqual([]);
  });

  it('no extension compared with a format name outside the registry', () => {
    const compared = new RegExp(`\\b(ext|extension|\\w+Ext)\\s*[!=]==\\s*'(${EXTENSIONS.join('|')})'`);
    expect(
      outsideReaders()
        .filter(({ code }) => compared.test(code))
        .map(({ file }) => file),
    ).toEqual([]);
  });

  it('the registry loads no reader, digester or library until one is used', () => {
    const registry = sources().find(({ file }) => file === REGISTRY)!.code;
    const valueImports = [...registry.matchAll(/^import (?!type\b).*$/gm)].map((m) => m[0]);
    expect(valueImports).toEqual([]);
  });

  it("digests are made with their format's reader's parse, not a parser of their own", () => {
    const digests = sources().filter(({ file }) => file.startsWith('documents/digest/'));
    const libraries = digests.flatMap(({ file, code }) =>
      [...code.matchAll(/^import (?!type\b)[^;]*? from '([^.'][^']*)'/gm)]
        .map((m) => m[1] as string)
        .filter((lib) => !lib.startsWith('node:'))
        .map((lib) => `${file}: ${lib}`),
    );
    // A PDF's digest hashes the objects each page is drawn from, which pdf.js (the reader's text
    // extraction) does not show; pdf-lib, which the pdf module loads to write, reads them.
    expect(libraries).toEqual(['documents/digest/pdf.ts: pdf-lib']);
  });
});
