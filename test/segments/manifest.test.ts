import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkManifestFile } from '../../src/manifest/load.js';
import { methodFor } from '../../src/manifest/sections/mapping.js';
import { projectsOfEachTest } from '../manifest/project.js';

// `method` in the manifest: on a mapping and on a target (which wins), document by default; what
// cannot go with the segment path is named with its place.

const project = projectsOfEachTest();

/** A manifest of one mapping `docs` with `mappingLines` and German target lines (YAML, indented). */
const oneMapping = (mappingLines: string, targetLines = '') => `mappings:
  - name: docs
    source: docs
${mappingLines}    output: out/{lang}/{path}
    targets:
      - lang: de
${targetLines}`;

async function check(yaml: string) {
  const dir = await project({ 'pipeline.yaml': yaml, 'docs/a.txt': 'Hello.\n' });
  return checkManifestFile(path.join(dir, 'pipeline.yaml'));
}

describe('method in the manifest', () => {
  it('is document by default, set on a mapping, overridden by a target', async () => {
    const r = await check(`mappings:
  - name: docs
    source: docs
    source_lang: en
    method: segments
    output: out/{lang}/{path}
    targets:
      - lang: de
      - lang: fr
        method: document
  - name: plain
    source: docs
    output: plain/{lang}/{path}
    targets:
      - lang: de
`);
    expect(r.errors).toEqual([]);
    const [docs, plain] = r.loaded!.manifest.mappings;
    expect(docs!.targets.map((t) => methodFor(docs!, t))).toEqual(['segments', 'document']);
    expect(methodFor(plain!, plain!.targets[0]!)).toBe('document');
  });

  it('refuses an unknown method and output_format with segments, naming the line', async () => {
    const bad = await check(oneMapping('    source_lang: en\n    method: sentences\n'));
    expect(bad.errors).toEqual([
      expect.objectContaining({
        line: 5,
        message: expect.stringMatching(/method: 'sentences'.*document \| segments/),
      }),
    ]);
    const conversion = await check(
      oneMapping('    source_lang: en\n', '        method: segments\n        output_format: docx\n'),
    );
    expect(conversion.errors).toEqual([
      expect.objectContaining({
        line: 9,
        message: expect.stringMatching(/output_format.*method: segments.*cannot translate pdf/),
      }),
    ]);
  });

  it('warns when a segments mapping has no source_lang', async () => {
    const r = await check(oneMapping('    method: segments\n'));
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/without source_lang.*set source_lang/),
    ]);
  });
});
