import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkManifestFile } from '../../src/manifest/load.js';
import { qaSettingsOf } from '../../src/qa/settings.js';
import { tempProject } from '../manifest/project.js';

// A mapping's `qa:` (docs/qa.md): checked with the file and line of the mistake; defaults applied.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function errorsOf(qa: string) {
  const yaml = `mappings:
  - name: docs
    source: docs
    output: out/{lang}/{path}
    targets:
      - lang: de
    qa:
${qa}`;
  const p = await tempProject({ 'pipeline.yaml': yaml, 'docs/a.txt': 'x' });
  cleanups.push(p.remove);
  const { errors, loaded } = await checkManifestFile(path.join(p.dir, 'pipeline.yaml'));
  return { errors, loaded, file: path.join(p.dir, 'pipeline.yaml') };
}

describe('qa: in the manifest', () => {
  it('an unknown check is named with its line and the checks there are', async () => {
    const { errors, file } = await errorsOf('      fail_on: [untranslated, placeholder]\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.file).toBe(file);
    expect(errors[0]!.line).toBe(8);
    expect(errors[0]!.message).toContain('placeholders');
  });

  it('a check both in fail_on and ignore is an error at its line', async () => {
    const { errors } = await errorsOf(
      '      fail_on: [untranslated, length]\n      ignore:\n        - numbers\n        - length\n',
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]!.line).toBe(11);
    expect(errors[0]!.message).toContain("'length' is in both fail_on and ignore of mapping 'docs'");
  });

  it('defaults: language and placeholders fail, the rest flag; ignore and fail_on apply', async () => {
    const { errors, loaded } = await errorsOf(
      '      fail_on: [untranslated, placeholders]\n      ignore: [length]\n',
    );
    expect(errors).toEqual([]);
    expect(qaSettingsOf(loaded!.manifest.mappings[0])).toEqual({
      failOn: ['untranslated', 'placeholders'],
      ignore: ['length'],
    });
    expect(qaSettingsOf(undefined)).toEqual({ failOn: ['language', 'placeholders'], ignore: [] });
  });
});
