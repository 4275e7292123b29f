// Output paths of string files: each ecosystem's spelling of the target language in the output
// pattern, and a one-file mapping whose translations sit beside its source (locales/en.json →
// locales/de.json), which the manifest checks accept only for such a mapping.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { languageInStyle } from '../../src/documents/index.js';
import { checkManifestFile } from '../../src/manifest/load.js';
import { renderOutputPath } from '../../src/manifest/paths.js';
import { projectsOfEachTest } from '../manifest/project.js';

const project = projectsOfEachTest();

async function errorsOf(mapping: string): Promise<string[]> {
  const dir = await project({ 'pipeline.yaml': `mappings:\n${mapping}`, 'locales/en.json': '{}\n' });
  const { errors } = await checkManifestFile(path.join(dir, 'pipeline.yaml'));
  return errors.map((e) => e.message);
}

describe('string file output paths', () => {
  it('spells the language as each ecosystem does', () => {
    const table = ['de', 'pt-br', 'zh-hans', 'en-gb'].map((l) => [
      l,
      languageInStyle(l, 'bcp47'),
      languageInStyle(l, 'posix'),
      languageInStyle(l, 'android'),
    ]);
    expect(table).toEqual([
      ['de', 'de', 'de', 'de'],
      ['pt-br', 'pt-BR', 'pt_BR', 'pt-rBR'],
      ['zh-hans', 'zh-Hans', 'zh_Hans', 'b+zh+Hans'],
      ['en-gb', 'en-GB', 'en_GB', 'en-rGB'],
    ]);
    const vars = { lang: 'pt-br', relPath: 'strings.xml', mapping: 'app', outputExt: 'xml' };
    expect(renderOutputPath('res/values-{lang_android}/{name}', vars)).toBe('res/values-pt-rBR/strings.xml');
    expect(
      renderOutputPath('ios/{lang_bcp47}.lproj/{name}', {
        ...vars,
        relPath: 'Localizable.strings',
        outputExt: 'strings',
      }),
    ).toBe('ios/pt-BR.lproj/Localizable.strings');
    expect(
      renderOutputPath('po/{lang_posix}.po', { ...vars, relPath: 'messages.pot', outputExt: 'po' }),
    ).toBe('po/pt_BR.po');
  });

  it('accepts a one-file mapping writing beside its source, and nothing looser', async () => {
    const target = '    targets: [{ lang: de }, { lang: pt-br }]\n    method: segments\n';
    expect(
      await errorsOf(
        `  - name: web\n    source: locales\n    include: [en.json]\n    output: locales/{lang_bcp47}.json\n${target}`,
      ),
    ).toEqual([]);
    // a glob takes the outputs back as sources: refused as before
    const globbed = await errorsOf(
      `  - name: web\n    source: locales\n    include: ['*.json']\n    output: locales/{lang_bcp47}.json\n${target}`,
    );
    expect(globbed.join('\n')).toMatch(/names no file placeholder/);
    expect(globbed.join('\n')).toMatch(/inside the source folder/);
    // an output that is the source file itself
    const same = await errorsOf(
      `  - name: web\n    source: locales\n    include: [en.json]\n    output: locales/en.json\n    targets: [{ lang: de }]\n`,
    );
    expect(same.join('\n')).toMatch(/inside the source folder/);
  });
});
