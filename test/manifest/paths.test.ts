import { describe, expect, it } from 'vitest';
import {
  OutputPathError,
  outputRoot,
  patternPlaceholders,
  renderOutputPath,
} from '../../src/manifest/paths.js';

const vars = { lang: 'pt-br', relPath: 'guides/intro.doc', mapping: 'docs', outputExt: 'docx' };

describe('output path patterns', () => {
  it('renders every placeholder', () => {
    expect(renderOutputPath('out/{lang}/{path}', vars)).toBe('out/pt-br/guides/intro.docx');
    expect(renderOutputPath('out/{LANG}/{dir}/{stem}.{lang}.{ext}', vars)).toBe(
      'out/PT-BR/guides/intro.pt-br.docx',
    );
    expect(renderOutputPath('{mapping}/{lang}/{name}', vars)).toBe('docs/pt-br/intro.docx');
  });

  it('normalises an empty {dir} and keeps / separators', () => {
    expect(renderOutputPath('out/{lang}/{dir}/{stem}.{ext}', { ...vars, relPath: 'a.pdf' })).toBe(
      'out/pt-br/a.docx',
    );
    expect(
      renderOutputPath('./out//{lang}/{path}', { ...vars, relPath: 'x/y/z.txt', outputExt: 'txt' }),
    ).toBe('out/pt-br/x/y/z.txt');
  });

  it('lists placeholders in order, once each', () => {
    expect(patternPlaceholders('out/{lang}/{path}.{lang}{foo}')).toEqual(['lang', 'path', 'foo']);
    expect(patternPlaceholders('plain/file.txt')).toEqual([]);
  });

  it('finds the fixed folder before the first placeholder', () => {
    expect(outputRoot('out/{lang}/{path}')).toBe('out');
    expect(outputRoot('out/docs-{lang}/{path}')).toBe('out');
    expect(outputRoot('{lang}/{path}')).toBe('.');
    expect(outputRoot('../shared/translations/{lang}/{path}')).toBe('../shared/translations');
  });

  it('never lets a file path leave the output root', () => {
    for (const relPath of ['../../etc/passwd', 'a/../../b.txt', '..', '/etc/passwd']) {
      expect(() => renderOutputPath('out/{lang}/{path}', { ...vars, relPath })).toThrow(OutputPathError);
    }
    expect(() => renderOutputPath('out/{mapping}/{path}', { ...vars, mapping: '..' })).toThrow(
      /leave the output root/,
    );
  });

  it('rejects an unknown placeholder', () => {
    expect(() => renderOutputPath('out/{lagn}/{path}', vars)).toThrow(/unknown placeholder \{lagn\}/);
  });
});
