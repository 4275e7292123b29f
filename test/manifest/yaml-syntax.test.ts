import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkManifestFile } from '../../src/manifest/load.js';
import { runCli } from '../helpers/cli.js';
import { tempProject } from './project.js';

// A YAML syntax mistake is one error, at the line and column to fix, with that line shown: never
// the place the parser gave up at, never the errors that follow from the first one.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const EXAMPLE = fs.readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '../../pipeline.example.yaml'),
  'utf8',
);

/** The example manifest with one line replaced (`find` → `replace`): the 1-based line changed. */
function breakExample(find: string, replace: string): { yaml: string; line: number } {
  const lines = EXAMPLE.split('\n');
  const i = lines.findIndex((l) => l.includes(find));
  if (i < 0) throw new Error(`no line with ${find}`);
  lines[i] = lines[i]!.replace(find, replace);
  return { yaml: lines.join('\n'), line: i + 1 };
}

async function errorsOf(
  yaml: string,
): Promise<{ file: string; errors: Awaited<ReturnType<typeof checkManifestFile>>['errors'] }> {
  const p = await tempProject({ 'pipeline.yaml': yaml });
  cleanups.push(p.remove);
  const file = path.join(p.dir, 'pipeline.yaml');
  return { file, errors: (await checkManifestFile(file)).errors };
}

/** Exactly one error, a YAML syntax error at line:column, showing that line with a caret. */
async function expectOneSyntaxError(yaml: string, line: number, column: number, says: RegExp): Promise<void> {
  const { file, errors } = await errorsOf(yaml);
  expect(errors.map((e) => e.format())).toHaveLength(1);
  const e = errors[0]!;
  expect([e.file, e.line, e.column]).toEqual([file, line, column]);
  expect(e.message).toMatch(/^YAML syntax error: /);
  expect(e.message).toMatch(says);
  const shown = yaml.split('\n')[line - 1]!;
  const [, excerpt, caret] = e.message.split('\n');
  expect(excerpt).toBe(`  ${line} | ${shown}`);
  expect(caret!.indexOf('^') - caret!.indexOf('|') - 2).toBe(column - 1);
}

describe('YAML syntax errors: one per mistake, where it was made', () => {
  it('an unclosed quote in the middle of the file: the line of the quote, not the end of the file', async () => {
    const { yaml, line } = breakExample('source: samples', 'source: "samples');
    const col = yaml.split('\n')[line - 1]!.indexOf('"') + 1;
    await expectOneSyntaxError(yaml, line, col, /closing "quote/);
  });

  it('an unclosed [ : the bracket, not the next key', async () => {
    const { yaml, line } = breakExample(
      "exclude: ['phrasebook.*', 'README.md']",
      "exclude: ['phrasebook.*', 'README.md'",
    );
    const col = yaml.split('\n')[line - 1]!.indexOf('[') + 1;
    await expectOneSyntaxError(yaml, line, col, /flow sequence/i);
  });

  it('a key indented wrongly: that line, at its first character', async () => {
    const { yaml, line } = breakExample('    source: samples', '   source: samples');
    await expectOneSyntaxError(yaml, line, 4, /this line is indented less than the key above it/);
  });

  it('a key indented more than the key above it: that line, not the one before, in words (issue 29)', async () => {
    const { yaml, line } = breakExample('    source: samples', '      source: samples');
    await expectOneSyntaxError(
      yaml,
      line,
      7,
      /this line is indented more than the key above it \('name' on line \d+, which has a value\): start 'source' in column 5, as 'name'/,
    );
  });

  it("a list item whose '-' is not under the one above it: that item, in words (issue 29)", async () => {
    const yaml = [
      'mappings:',
      '  - name: docs',
      '    source: docs',
      '    output: out/{lang}/{path}',
      '    targets:',
      '      - lang: de',
      '     - lang: fr',
      '',
    ].join('\n');
    await expectOneSyntaxError(
      yaml,
      7,
      6,
      /this list item's '-' is in column 6, 1 to the left of the item above it \(line 6, column 7\)/,
    );
  });

  it('a key without its colon, a tab as indentation, a duplicate key', async () => {
    const noColon = breakExample('source_lang: en', 'source_lang en');
    await expectOneSyntaxError(noColon.yaml, noColon.line, 5, /map values|implicit/i);
    const tab = breakExample('    source: samples', '\tsource: samples');
    await expectOneSyntaxError(tab.yaml, tab.line, 1, /[Tt]abs/);
    const dup = breakExample('max_attempts: 3', 'state: again.db');
    await expectOneSyntaxError(dup.yaml, dup.line, 1, /unique/);
  });

  it('validate prints the one error with the line shown and exits 2', async () => {
    const { yaml, line } = breakExample('source: samples', 'source: "samples');
    const p = await tempProject({ 'pipeline.yaml': yaml });
    cleanups.push(p.remove);
    const file = path.join(p.dir, 'pipeline.yaml');
    const r = await runCli(['validate', '-c', file]);
    expect(r.code).toBe(2);
    const located = r.stdout.split('\n').filter((l) => l.startsWith(`${file}:`));
    expect(located).toHaveLength(1);
    expect(located[0]).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:\\d+: YAML syntax error`),
    );
    expect(r.stdout).toContain(`  ${line} |     source: "samples`);
    expect(r.stdout).toContain('1 problem found');
  });
});
