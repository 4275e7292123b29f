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
    expect(same).toEqual([
      "mappings[0].output: 'locales/en.json' writes the files of mapping 'web' (en.json in 'locales') into themselves, over their source text; only a format whose one file holds every language (.xcstrings) has its targets written into its source file; write the others to a folder of their own such as out/{lang}/{path}",
    ]);
  });

  it('writes a String Catalog’s targets into the catalog itself, and no other format’s', async () => {
    const targets = '    targets: [{ lang: de }, { lang: ja }]\n    method: segments\n';
    // every target into the one catalog: as a pattern of the source folder, or the file named
    for (const [include, output] of [
      ["['**/*.xcstrings']", 'App/{path}'],
      ["['*.xcstrings']", 'App/{dir}/{stem}.{ext}'],
      ['[Localizable.xcstrings]', 'App/Localizable.xcstrings'],
      ['[Localizable.xcstrings]', 'App/{path}'],
    ])
      expect(
        await errorsOf(
          `  - name: app\n    source: App\n    include: ${include}\n    output: ${output}\n${targets}`,
        ),
      ).toEqual([]);
    // JSON holds one language: its files written over themselves are refused, naming them
    const json = await errorsOf(
      `  - name: web\n    source: locales\n    include: ['**/*.json']\n    output: locales/{path}\n${targets}`,
    );
    expect(json).toEqual([
      "mappings[0].output: 'locales/{path}' writes the files of mapping 'web' (**/*.json in 'locales') into themselves, over their source text; only a format whose one file holds every language (.xcstrings) has its targets written into its source file; write the others to a folder of their own such as out/{lang}/{path}",
    ]);
    // and so is a mapping that takes a catalog among other files
    const mixed = await errorsOf(
      `  - name: app\n    source: App\n    include: ['*.xcstrings', '*.strings']\n    output: App/{path}\n${targets}`,
    );
    expect(mixed.join('\n')).toMatch(/\(\*\.xcstrings, \*\.strings in 'App'\) into themselves/);
  });
});
