import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkManifestFile } from '../../src/manifest/load.js';
import { OUTPUT_PLACEHOLDERS } from '../../src/manifest/sections/mapping.js';
import { ROOT } from '../helpers/cli.js';
import { projectsOfEachTest } from './project.js';

// What a team writing its first manifest is told: a mistake with its fix, a language that leaves
// the choice to the service, silence on the patterns the docs recommend, an example that is true.

const project = projectsOfEachTest();

const oneMapping = (lines: string) =>
  `mappings:\n  - name: docs\n    source: docs\n    output: out/{lang}/{path}\n${lines}`;

describe('a new team writing its manifest', () => {
  it('`targets: de,fr,ja` is refused with the list it means', async () => {
    const dir = await project({ 'p.yaml': oneMapping('    targets: de,fr,ja\n'), 'docs/a.txt': 'x' });
    const { errors } = await checkManifestFile(path.join(dir, 'p.yaml'));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.line).toBe(5);
    expect(errors[0]!.message).toContain('`targets: [{ lang: de }, { lang: fr }, { lang: ja }]`');
  });

  it('`pt` (and `en`, `zh`) without a variant is warned with both variants named', async () => {
    const dir = await project({
      'p.yaml': oneMapping('    targets:\n      - lang: de\n      - lang: pt\n      - lang: en-gb\n'),
      'docs/a.txt': 'x',
    });
    const { errors, warnings } = await checkManifestFile(path.join(dir, 'p.yaml'));
    expect(errors).toEqual([]);
    expect(warnings.map((w) => [w.line, w.message])).toEqual([
      [
        7,
        "mappings[0].targets[1].lang: 'pt' leaves the regional variant to the service, which may change it; write 'pt-br' or 'pt-pt'",
      ],
    ]);
  });

  it('the output patterns docs/strings/ recommends are taken without a warning', async () => {
    // Every manifest of docs/strings/, with its source folder and files made.
    const blocks: string[] = [];
    for (const f of fs.readdirSync(path.join(ROOT, 'docs/strings'))) {
      const text = fs.readFileSync(path.join(ROOT, 'docs/strings', f), 'utf8');
      for (const m of text.matchAll(/```yaml\n([\s\S]*?)```/g))
        if (/^\s*(mappings:|- name:)/m.test(m[1]!)) blocks.push(m[1]!);
    }
    expect(blocks.length).toBeGreaterThan(8);
    for (const block of blocks) {
      const body = block.startsWith('mappings:') ? block : `mappings:\n${block}`;
      const files: Record<string, string> = { 'p.yaml': body };
      for (const m of body.matchAll(/source: (\S+)(?:\n\s+include: \[([^\]]+)\])?/g)) {
        const include = m[2]?.split(',')[0]?.trim() ?? 'a.json';
        files[`${m[1]}/${include.replace(/[*?]/g, 'x')}`] = '{}';
      }
      const dir = await project(files);
      const { errors, warnings } = await checkManifestFile(path.join(dir, 'p.yaml'));
      expect(
        errors.map((e) => e.message),
        body,
      ).toEqual([]);
      expect(
        warnings.map((w) => w.message),
        body,
      ).toEqual([]);
    }
  });

  it("pipeline.example.yaml's comments: a command the README allows, every placeholder", () => {
    const text = fs.readFileSync(path.join(ROOT, 'pipeline.example.yaml'), 'utf8');
    // The README warns against a bare `npx locsync` (the registry's package of that name).
    expect(text).not.toMatch(/npx locsync/);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const run = /^# +(\S.*-c pipeline\.example\.yaml)$/m.exec(text)?.[1];
    expect(run).toBeDefined();
    expect(readme).toContain(run!);
    const listed = /# Placeholders: (.*\n.*)$/m.exec(text)?.[1]?.match(/\{(\w+)\}/g);
    expect(new Set(listed)).toEqual(new Set(Object.keys(OUTPUT_PLACEHOLDERS).map((p) => `{${p}}`)));
  });
});
