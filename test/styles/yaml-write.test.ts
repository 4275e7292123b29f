import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { StyleRuleList } from '../../src/api/types.js';
import { styleListBodySchema } from '../../src/manifest/sections/style-list.js';
import { writeStyleListFile } from '../../src/styles/yaml-write.js';
import { tempProject } from '../manifest/project.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function dir(files: Record<string, string> = {}): Promise<string> {
  const p = await tempProject(files);
  cleanups.push(p.remove);
  return p.dir;
}

function remote(over: Partial<StyleRuleList> = {}): StyleRuleList {
  return {
    style_id: '5c1e0d2a-1111-4e2b-9a7c-3d4e5f6a7b8c',
    name: 'Marketing FR',
    language: 'fr',
    version: 7,
    creation_time: '2026-01-01T00:00:00Z',
    updated_time: '2026-01-02T00:00:00Z',
    configured_rules: {
      punctuation: { quotation_mark: 'use_guillemets' },
      numbers: { thousands_separator: 'do_not_use' },
    },
    custom_instructions: [
      { id: 'i1', label: 'Tone', prompt: 'Use vous', source_language: 'en' },
      { id: 'i2', label: 'Brand', prompt: 'Keep "ACME"' },
    ],
    ...over,
  };
}

describe('style list files written from the service', () => {
  it('a new file holds exactly the list, valid for the manifest, with where it came from', async () => {
    const d = await dir();
    const file = path.join(d, 'styles', 'marketing-fr.yaml');
    await mkdir(path.dirname(file), { recursive: true });
    expect(
      await writeStyleListFile(file, remote(), {
        key: 'marketing-fr',
        schemaPath: path.join(d, 'schema/style-list.schema.json'),
      }),
    ).toBe('created');
    const text = await readFile(file, 'utf8');
    expect(text).toContain(
      'pulled from the service (style_id 5c1e0d2a-1111-4e2b-9a7c-3d4e5f6a7b8c, version 7)',
    );
    expect(text).toContain('$schema=../schema/style-list.schema.json');
    expect(styleListBodySchema.parse(parse(text))).toEqual({
      name: 'Marketing FR',
      language: 'fr',
      drift: 'fail',
      configured_rules: {
        punctuation: { quotation_mark: 'use_guillemets' },
        numbers: { thousands_separator: 'do_not_use' },
      },
      custom_instructions: [
        { label: 'Tone', prompt: 'Use vous', source_language: 'en' },
        { label: 'Brand', prompt: 'Keep "ACME"' },
      ],
    });
  });

  it('an existing file is updated in place: comments and untouched entries stay, the rest follows the service', async () => {
    const original = `# Owned by marketing. Do not edit in the web UI!
name: Marketing FR # shown in the web UI
language: fr
drift: adopt
configured_rules:
  punctuation:
    quotation_mark: use_curly_quotation_marks # to be decided
  dates_and_times: # gone on the service
    time_format: use_24_hour_clock
custom_instructions:
  - { label: Brand, prompt: 'Keep "ACME"' } # flow style stays
  - label: Old
    prompt: removed on the service
`;
    const d = await dir({ 'fr.yaml': original });
    const file = path.join(d, 'fr.yaml');
    expect(await writeStyleListFile(file, remote(), { key: 'fr' })).toBe('updated');
    const text = await readFile(file, 'utf8');
    for (const kept of [
      '# Owned by marketing.',
      '# shown in the web UI',
      '# to be decided',
      '# flow style stays',
      'drift: adopt',
    ]) {
      expect(text).toContain(kept);
    }
    expect(text).not.toContain('dates_and_times');
    expect(text).not.toContain('label: Old');
    const parsed = styleListBodySchema.parse(parse(text));
    expect(parsed.configured_rules).toEqual(remote().configured_rules);
    expect(parsed.custom_instructions).toEqual([
      { label: 'Brand', prompt: 'Keep "ACME"' },
      { label: 'Tone', prompt: 'Use vous', source_language: 'en' },
    ]);
    expect(await writeStyleListFile(file, remote(), { key: 'fr' })).toBe('unchanged');
  });
});
