import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkManifestFile } from '../../src/manifest/load.js';
import type { ConfigError } from '../../src/util/errors.js';
import { tempProject } from './project.js';

// Every mistake a user can make in a manifest, each with its file, line and message.
// In the YAML below, `#<` marks the line the error must point at (the marker is a YAML comment).

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

interface Result {
  dir: string;
  errors: ConfigError[];
  file(rel: string): string;
}

async function check(files: Record<string, string>, main = 'pipeline.yaml'): Promise<Result> {
  const p = await tempProject(files);
  cleanups.push(p.remove);
  const { errors, loaded } = await checkManifestFile(path.join(p.dir, main));
  expect(loaded === undefined).toBe(errors.length > 0);
  return { dir: p.dir, errors, file: (rel) => path.join(p.dir, rel) };
}

/** 1-based line of the `#<` marker in a text. */
function markedLine(text: string, marker = '#<'): number {
  const i = text.split('\n').findIndex((l) => l.includes(marker));
  if (i < 0) throw new Error(`no ${marker} marker`);
  return i + 1;
}

/** Exactly one error, in `file`, on the marked line, whose message contains every part. */
async function expectOneError(yaml: string, ...parts: string[]): Promise<ConfigError> {
  const r = await check({ 'pipeline.yaml': yaml });
  expect(r.errors.map((e) => e.format())).toHaveLength(1);
  const e = r.errors[0]!;
  expect(e.file).toBe(r.file('pipeline.yaml'));
  expect(e.line).toBe(markedLine(yaml));
  for (const part of parts) expect(e.message).toContain(part);
  return e;
}

const mapping = (targets: string, extra = '') => `mappings:
  - name: docs
    source: docs
    output: out/{lang}/{path}${extra}
    targets:
${targets}`;

describe('manifest errors name the file, line and column and say what is expected', () => {
  it('YAML syntax errors', async () => {
    const yaml = `mappings:\n  - name: "docs\n    source: docs #<\n`;
    const r = await check({ 'pipeline.yaml': yaml });
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors[0]!.message).toMatch(/^YAML syntax error/);
    expect(r.errors[0]!.file).toBe(r.file('pipeline.yaml'));
  });

  it('duplicate keys', async () => {
    const yaml = `state: a.db\nstate: b.db #<\n${mapping('      - lang: de')}`;
    const e = await expectOneError(yaml, 'YAML syntax error', 'unique');
    expect(e.column).toBe(1);
  });

  it('an unknown key, with the nearest known key', async () => {
    const yaml = `mappings:
  - name: docs
    source: docs
    output: out/{lang}/{path}
    taregts: #<
      - lang: de
    targets:
      - lang: fr
`;
    const e = await expectOneError(yaml, "unknown key 'taregts' in mappings[0] (did you mean 'targets'?)");
    expect(e.column).toBe(5);
  });

  it('an unknown key far from any known key lists the keys expected', async () => {
    await expectOneError(
      `service:\n  zzzzzz: 1 #<\n${mapping('      - lang: de')}`,
      "unknown key 'zzzzzz' in service; expected one of: url, plan, key_env",
    );
  });

  it('a wrong type', async () => {
    const e = await expectOneError(
      `service:\n  concurrency: four #<\n${mapping('      - lang: de')}`,
      "service.concurrency: expected a whole number, got a string ('four')",
    );
    expect(e.column).toBe(16);
  });

  it('targets written as bare languages', async () => {
    await expectOneError(
      `mappings:\n  - name: docs\n    source: docs\n    output: out/{lang}/{path}\n    targets:\n      - de #<\n`,
      "mappings[0].targets[0]: expected a mapping, got a string ('de') (write a target as `- lang: de`)",
    );
  });

  it('a missing required key points at the mapping that lacks it', async () => {
    await expectOneError(
      mapping('      - formality: prefer_more #<'),
      "missing required key 'lang' in mappings[0].targets[0]: expected one of ar | bg",
    );
  });

  it('unknown languages: target, source and style list', async () => {
    await expectOneError(
      mapping('      - lang: pt_br #<'),
      "unknown language 'pt_br' (did you mean 'pt-br'?)",
      'zh-hant',
    );
    await expectOneError(
      mapping('      - lang: de', '\n    source_lang: english #<'),
      "mappings[0].source_lang: unknown language 'english'",
    );
    await expectOneError(
      `style_lists:\n  pt:\n    language: pt #<\n${mapping('      - lang: de')}`,
      "style_lists.pt.language: unknown language 'pt'; expected one of: de, en, es, fr, it, ja, ko, zh",
    );
  });

  it('a regional or country form of a language: the code the service knows (issue 29)', async () => {
    await expectOneError(
      mapping('      - lang: fr-FR #<'),
      "unknown language 'fr-FR' (did you mean 'fr'? the service has no fr-FR of its own; 'fr' is French)",
    );
    // A region the service translates into is suggested as it is spelt there.
    await expectOneError(
      mapping('      - lang: en_GB #<'),
      "unknown language 'en_GB' (did you mean 'en-gb'?)",
    );
    await expectOneError(
      mapping('      - lang: gr #<'),
      "unknown language 'gr' (did you mean 'el'? 'gr' is the country code of Greece; Greek is 'el')",
    );
    await expectOneError(
      mapping('      - lang: de', '\n    source_lang: de-AT #<'),
      "unknown language 'de-AT' (did you mean 'de'?",
    );
  });

  it('a key in the wrong section: where it belongs, from the schema (issue 29)', async () => {
    await expectOneError(
      `concurrency: 4 #<\n${mapping('      - lang: de')}`,
      "unknown key 'concurrency'; it belongs under service: (move it there)",
    );
    await expectOneError(
      mapping('      - lang: de', '\n    formality: more #<'),
      "unknown key 'formality' in mappings[0]; it belongs under mappings[].targets[]: (move it there)",
    );
  });

  it('an unknown source_language of a custom instruction', async () => {
    await expectOneError(
      `style_lists:\n  x:\n    language: de\n    custom_instructions:\n      - label: l\n        prompt: p\n        source_language: EN #<\n${mapping('      - lang: de')}`,
      "style_lists.x.custom_instructions[0].source_language: unknown language 'EN' (did you mean 'en'?)",
    );
  });

  it("a style list of another language than the target's", async () => {
    await expectOneError(
      `style_lists:\n  fr-docs:\n    language: fr\n${mapping('      - lang: de\n        style: fr-docs #<')}`,
      "style list 'fr-docs' is for language 'fr'",
      "the target language is 'de'",
    );
    // The base language decides: an en list suits en-gb, a zh list suits zh-hant.
    const ok = await check({
      'pipeline.yaml': `style_lists:\n  en: { language: en }\n  zh: { language: zh }\n${mapping('      - lang: en-gb\n        style: en\n      - lang: zh-hant\n        style: zh')}`,
    });
    expect(ok.errors).toEqual([]);
  });

  it('a style list file of another language names that file and its line', async () => {
    const list = `# German list\nname: x\nlanguage: de\n`;
    const yaml = `style_lists:\n  x: { file: styles/x.yaml }\n${mapping('      - lang: fr\n        style: x #<')}`;
    const r = await check({ 'pipeline.yaml': yaml, 'styles/x.yaml': list });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.line).toBe(markedLine(yaml));
    expect(r.errors[0]!.message).toContain("is for language 'de' (styles/x.yaml:3)");
  });

  it('a target naming a style list that does not exist', async () => {
    await expectOneError(
      `style_lists:\n  de-docs: { language: de }\n${mapping('      - lang: de\n        style: de-doc #<')}`,
      "unknown style list 'de-doc' (did you mean 'de-docs'?)",
    );
  });

  it('formality more/less on a target without formality suggests prefer_', async () => {
    await expectOneError(
      mapping('      - lang: en-gb\n        formality: less #<'),
      "formality 'less' is not supported for target 'en-gb'",
      'use prefer_less',
    );
    const ok = await check({
      'pipeline.yaml': mapping(
        '      - lang: pt-br\n        formality: more\n      - lang: en-gb\n        formality: prefer_more',
      ),
    });
    expect(ok.errors).toEqual([]);
  });

  it('a target equal to the source language', async () => {
    await expectOneError(
      mapping('      - lang: de\n      - lang: en-us #<', '\n    source_lang: en'),
      "target language 'en-us' is the source language 'en' of mapping 'docs'",
    );
  });

  it('glossary_id without source_lang', async () => {
    await expectOneError(
      mapping('      - lang: de\n        glossary_id: abc #<'),
      'a glossary needs the source language; set source_lang',
    );
  });

  it('an output_format that is not a conversion of the service', async () => {
    await expectOneError(
      mapping('      - lang: de\n        output_format: pptx #<'),
      "output_format 'pptx' is not a conversion the service offers",
      'pdf → docx',
    );
    expect(
      (await check({ 'pipeline.yaml': mapping('      - lang: de\n        output_format: docx') })).errors,
    ).toEqual([]);
  });

  it('an output folder inside a source folder, and a source inside an output folder', async () => {
    await expectOneError(
      `mappings:\n  - name: docs\n    source: docs\n    output: docs/translated/{lang}/{path} #<\n    targets: [{ lang: de }, { lang: fr }]\n`,
      "output folder 'docs/translated/de' of 'docs/translated/{lang}/{path}' is inside the source folder 'docs'",
    );
    await expectOneError(
      `mappings:\n  - name: docs\n    source: docs\n    output: '{dir}/{stem}.{lang}.{ext}' #<\n    targets: [{ lang: de }]\n`,
      "the source folder 'docs' of mapping 'docs' is inside the output folder '.'",
    );
    // Sibling language folders are fine: German outputs go to content/de, never into content/en.
    const ok = await check({
      'pipeline.yaml': `mappings:\n  - name: docs\n    source: content/en\n    output: content/{lang}/{path}\n    targets: [{ lang: de }, { lang: fr }]\n`,
    });
    expect(ok.errors).toEqual([]);
  });

  it('two mappings writing the same output paths, however the pattern is spelt', async () => {
    const yaml = `mappings:
  - name: a
    source: a
    output: out/{lang}/{path}
    targets: [{ lang: de }]
  - name: b
    source: b
    output: out/{lang}/{dir}/{stem}.{ext} #<
    targets: [{ lang: de }]
`;
    await expectOneError(yaml, "outputs of mapping 'b' (de) collide with those of mapping 'a' (de, line 4)");
    // {mapping} tells them apart.
    const ok = await check({ 'pipeline.yaml': yaml.replaceAll('out/', 'out/{mapping}/') });
    expect(ok.errors).toEqual([]);
  });

  it('a pattern without {lang} used by several targets', async () => {
    await expectOneError(
      mapping(
        "      - lang: de\n      - lang: fr\n        output: 'fr-out/{path}'\n      - lang: it\n        output: 'fr-out/{path}' #<",
      ),
      "output pattern 'fr-out/{path}' has no {lang} or {LANG} but is used by several targets of mapping 'docs' (fr, it)",
    );
  });

  it('unknown placeholders, unbalanced braces and patterns without a file placeholder', async () => {
    await expectOneError(
      `mappings:\n  - name: docs\n    source: docs\n    output: out/{lagn}/{path} #<\n    targets: [{ lang: de }]\n`,
      "unknown placeholder {lagn} in 'out/{lagn}/{path}' (did you mean 'lang'?)",
    );
    await expectOneError(
      `mappings:\n  - name: docs\n    source: docs\n    output: out/{lang}/{path}} #<\n    targets: [{ lang: de }]\n`,
      "unbalanced '{' or '}'",
    );
    await expectOneError(
      `mappings:\n  - name: docs\n    source: docs\n    output: out/{lang}/all.docx #<\n    targets: [{ lang: de }]\n`,
      'names no file placeholder',
    );
  });

  it('more than 200 custom instructions in a list', async () => {
    const many = Array.from({ length: 201 }, (_, i) => `      - { label: l${i}, prompt: p }`).join('\n');
    await expectOneError(
      `style_lists:\n  big:\n    language: de\n    custom_instructions: #<\n${many}\n${mapping('      - lang: de')}`,
      'style_lists.big.custom_instructions: 201 custom instructions; the service allows at most 200 per list',
    );
  });

  it('over-long name, label and prompt', async () => {
    await expectOneError(
      `style_lists:\n  x:\n    name: ${'n'.repeat(1025)} #<\n    language: de\n${mapping('      - lang: de')}`,
      'style_lists.x.name is 1025 characters long; at most 1024 are allowed',
    );
    await expectOneError(
      `style_lists:\n  x:\n    language: de\n    custom_instructions:\n      - label: ${'l'.repeat(101)} #<\n        prompt: p\n${mapping('      - lang: de')}`,
      'style_lists.x.custom_instructions[0].label is 101 characters long; at most 100 are allowed',
    );
    await expectOneError(
      `style_lists:\n  x:\n    language: de\n    custom_instructions:\n      - label: l\n        prompt: ${'p'.repeat(301)} #<\n${mapping('      - lang: de')}`,
      'custom_instructions[0].prompt is 301 characters long; at most 300 are allowed',
    );
  });

  it('style lists on the free plan', async () => {
    await expectOneError(
      `service: { plan: free }\nstyle_lists: #<\n  x: { language: de }\n${mapping('      - lang: de')}`,
      "style lists need the pro plan, but service.plan is 'free'",
    );
  });

  it('a style list with both file and inline keys', async () => {
    await expectOneError(
      `style_lists:\n  fr:\n    file: styles/fr.yaml\n    language: fr #<\n${mapping('      - lang: fr')}`,
      "unknown key 'language' in style_lists.fr; expected one of: file",
    );
  });

  it('a missing style list file: the manifest line that names it, and the file', async () => {
    const e = await expectOneError(
      `style_lists:\n  fr: { file: styles/fr.yaml } #<\n${mapping('      - lang: fr')}`,
      "style_lists.fr.file: style list file 'styles/fr.yaml' not found",
    );
    expect(e.message).toContain(path.join('styles', 'fr.yaml'));
  });

  it('an invalid style list file: the error is in that file, at its line', async () => {
    const list = `name: French\nlanguage: fr\nconfigured_rules:\n  punctation: #<\n    quotation_mark: use_curly_quotation_marks\n`;
    const r = await check({
      'pipeline.yaml': `style_lists:\n  fr: { file: styles/fr.yaml }\n${mapping('      - lang: fr\n        style: fr')}`,
      'styles/fr.yaml': list,
    });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.file).toBe(r.file('styles/fr.yaml'));
    expect(r.errors[0]!.line).toBe(markedLine(list));
    expect(r.errors[0]!.message).toContain(
      "unknown key 'punctation' in configured_rules (did you mean 'punctuation'?)",
    );
  });

  it('duplicate custom instruction labels in one list', async () => {
    await expectOneError(
      `style_lists:\n  x:\n    language: de\n    custom_instructions:\n      - { label: Tone, prompt: a }\n      - { label: Tone, prompt: b } #<\n${mapping('      - lang: de')}`,
      "duplicate custom instruction label 'Tone' in style list 'x' (also at line 5)",
    );
  });

  it('duplicate mapping names', async () => {
    await expectOneError(
      `mappings:
  - name: docs
    source: a
    output: out/a/{lang}/{path}
    targets: [{ lang: de }]
  - name: docs #<
    source: b
    output: out/b/{lang}/{path}
    targets: [{ lang: de }]
`,
      "duplicate mapping name 'docs' (also at line 2)",
    );
  });

  it('a service url that is not a URL, and a key_env that is not a variable name', async () => {
    await expectOneError(
      `service:\n  url: api.example #<\n${mapping('      - lang: de')}`,
      'expected an http:// or https:// URL',
    );
    await expectOneError(
      `service:\n  key_env: 'sk-live-123' #<\n${mapping('      - lang: de')}`,
      'expected the name of an environment variable',
    );
  });

  it('a missing phrasebook of the embedded service', async () => {
    await expectOneError(
      `service:\n  local:\n    phrasebook: samples/phrases.yaml #<\n${mapping('      - lang: de')}`,
      "service.local.phrasebook: file 'samples/phrases.yaml' not found",
    );
  });

  it('a state file inside a source folder', async () => {
    await expectOneError(
      `state: docs/.state/locsync.db #<\n${mapping('      - lang: de')}`,
      "the state file 'docs/.state/locsync.db' is inside the source folder 'docs' of mapping 'docs'",
    );
  });

  it('a mapping name that {mapping} would turn into several folders', async () => {
    await expectOneError(
      `mappings:\n  - name: team/docs #<\n    source: docs\n    output: out/{mapping}/{lang}/{path}\n    targets: [{ lang: de }]\n`,
      "'team/docs' is used as a folder name by {mapping}",
    );
  });

  it('an empty manifest', async () => {
    const r = await check({ 'pipeline.yaml': '# nothing yet\n' });
    expect(r.errors.map((e) => e.message)).toEqual(['the document: expected a mapping, got nothing']);
  });

  it('lists every problem, not only the first, sorted by line', async () => {
    const yaml = `service:\n  concurency: 2\nmappings:\n  - name: docs\n    source: docs\n    output: out/{lang}/{path}\n    targets:\n      - lang: xx\n      - lang: de\n        formality: mor\n`;
    const r = await check({ 'pipeline.yaml': yaml });
    expect(r.errors.map((e) => e.line)).toEqual([2, 8, 10]);
  });
});
