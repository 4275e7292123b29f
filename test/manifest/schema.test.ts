import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { manifestDocs } from '../../src/manifest/docs.js';
import {
  SCHEMA_FILES,
  jsonSchemaFor,
  jsonSchemaText,
  type SchemaFile,
} from '../../src/manifest/json-schema.js';
import { ROOT } from '../helpers/cli.js';

describe('generated files stay in step with src/manifest/schema.ts (run `npm run schema` when this fails)', () => {
  for (const file of Object.keys(SCHEMA_FILES) as SchemaFile[]) {
    it(`${file} is the JSON Schema generated from the zod schema`, async () => {
      expect(await readFile(path.join(ROOT, file), 'utf8')).toBe(jsonSchemaText(file));
    });
  }

  it('docs/manifest.md is the reference generated from the schema', async () => {
    expect(await readFile(path.join(ROOT, 'docs/manifest.md'), 'utf8')).toBe(manifestDocs());
  });

  it('the JSON Schema rejects unknown keys and documents every top-level key of the manifest', () => {
    const schema = jsonSchemaFor('schema/pipeline.schema.json') as {
      additionalProperties: boolean;
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['mappings']);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['service', 'state', 'style_lists', 'mappings', 'watch']),
    );
  });

  it('the reference lists every output placeholder', () => {
    const docs = manifestDocs();
    for (const p of ['{lang}', '{LANG}', '{path}', '{dir}', '{name}', '{stem}', '{ext}', '{mapping}']) {
      expect(docs).toContain(`\`${p}\``);
    }
  });

  it('editors using the JSON Schemas accept the example manifest and its style list, and flag a typo', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const pipeline = ajv.compile(jsonSchemaFor('schema/pipeline.schema.json'));
    const list = ajv.compile(jsonSchemaFor('schema/style-list.schema.json'));
    const example = parse(await readFile(path.join(ROOT, 'pipeline.example.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(pipeline(example), JSON.stringify(pipeline.errors)).toBe(true);
    expect(list(parse(await readFile(path.join(ROOT, 'styles/fr-docs.yaml'), 'utf8')))).toBe(true);
    expect(pipeline({ ...example, style_list: {} })).toBe(false);
    expect(pipeline.errors?.[0]).toMatchObject({
      keyword: 'additionalProperties',
      params: { additionalProperty: 'style_list' },
    });
  });
});
