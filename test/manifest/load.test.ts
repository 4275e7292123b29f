import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkManifestFile, loadManifest, ManifestError } from '../../src/manifest/load.js';
import { ROOT } from '../helpers/cli.js';
import { MINIMAL, projectsOfEachTest } from './project.js';

const project = projectsOfEachTest();

describe('loadManifest', () => {
  it('loads the example manifest with its style list file and applies defaults', async () => {
    const loaded = await loadManifest(path.join(ROOT, 'pipeline.example.yaml'));
    expect(loaded.dir).toBe(ROOT.replace(/\/$/, ''));
    expect(loaded.statePath).toBe(path.join(ROOT, '.locsync/state.db'));
    expect(Object.keys(loaded.styleLists).sort()).toEqual(['de-docs', 'fr-docs']);
    expect(loaded.styleLists['fr-docs']!.file).toBe(path.join(ROOT, 'styles/fr-docs.yaml'));
    expect(loaded.styleLists['fr-docs']!.language).toBe('fr');
    expect(loaded.styleLists['de-docs']!.name).toBe('locsync samples (German)');
    expect(loaded.manifest.mappings[0]!.targets.map((t) => t.lang)).toEqual(['de', 'fr', 'ja']);
  });

  it('names the file, line and column of a typo and suggests the key', async () => {
    const dir = await project({
      'p.yaml': `mappings:\n  - name: docs\n    source: docs\n    output: out/{lang}/{path}\n    taregts:\n      - lang: de\n`,
    });
    const err = await loadManifest(path.join(dir, 'p.yaml')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManifestError);
    const errors = (err as ManifestError).errors;
    const typo = errors.find((e) => e.message.includes('taregts'));
    expect(typo?.file).toBe(path.join(dir, 'p.yaml'));
    expect([typo?.line, typo?.column]).toEqual([5, 5]);
    expect(typo?.message).toContain("unknown key 'taregts' in mappings[0] (did you mean 'targets'?)");
    expect((err as ManifestError).format()).toContain(
      `${path.join(dir, 'p.yaml')}:5:5: unknown key 'taregts'`,
    );
  });

  it('accepts anchors and merge keys for targets that share settings', async () => {
    const dir = await project({
      'p.yaml': `style_lists:
  de-docs:
    language: de
mappings:
  - name: docs
    source: docs
    output: out/{lang}/{path}
    targets:
      - &german
        lang: de
        formality: prefer_more
        style: de-docs
      - <<: *german
        output: other/{lang}/{path}
`,
    });
    const loaded = await loadManifest(path.join(dir, 'p.yaml'));
    expect(loaded.manifest.mappings[0]!.targets[1]).toEqual({
      lang: 'de',
      formality: 'prefer_more',
      style: 'de-docs',
      output: 'other/{lang}/{path}',
    });
  });

  it('uses the manifest key as the style list name when none is given', async () => {
    const dir = await project({ 'p.yaml': `style_lists:\n  plain:\n    language: de\n${MINIMAL}` });
    const loaded = await loadManifest(path.join(dir, 'p.yaml'));
    expect(loaded.styleLists.plain).toMatchObject({ name: 'plain', drift: 'fail', configured_rules: {} });
  });

  it('warns, without failing, about an unused style list and a flattening pattern; a missing source folder is for validate (and runs) to fail on', async () => {
    const dir = await project({
      'p.yaml': `style_lists:\n  spare: { language: fr }\nmappings:\n  - name: docs\n    source: docs\n    output: out/{lang}/{name}\n    targets: [{ lang: de }]\n`,
    });
    const { loaded, errors, warnings, missingSources } = await checkManifestFile(path.join(dir, 'p.yaml'));
    expect(errors).toEqual([]);
    expect(loaded).toBeDefined();
    expect(warnings.map((w) => [w.line, w.message])).toEqual([
      [2, "style list 'spare' is not used by any target"],
      [
        6,
        "mappings[0].output: 'out/{lang}/{name}' has no {dir} or {path}: files of different sub-folders with the same name would collide (locsync reports them and skips the second)",
      ],
    ]);
    expect(missingSources.map((w) => [w.line, w.message])).toEqual([
      [
        5,
        expect.stringMatching(
          /^mappings\[0\]\.source: source folder 'docs' does not exist .*allow_missing: true/,
        ),
      ],
    ]);
  });
});
