import { z } from 'zod';
import { manifestSchema } from './schema.js';
import { styleListBodySchema } from './sections/style-list.js';

// JSON Schemas generated from the zod schema (the single source of truth), committed under schema/
// so editors validate pipeline.yaml and style list files. `npm run schema` rewrites them; a test
// fails when the committed files differ from what this generates.

export const SCHEMA_FILES = {
  'schema/pipeline.schema.json': { schema: manifestSchema, title: 'locsync pipeline manifest' },
  'schema/style-list.schema.json': { schema: styleListBodySchema, title: 'locsync style list file' },
} as const;

export type SchemaFile = keyof typeof SCHEMA_FILES;

/** The JSON Schema of the YAML as written (io: input: keys with defaults are optional). */
export function jsonSchemaFor(file: SchemaFile): Record<string, unknown> {
  const { schema, title } = SCHEMA_FILES[file];
  const generated = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' });
  return { ...generated, title };
}

/** The file's text exactly as committed. */
export function jsonSchemaText(file: SchemaFile): string {
  return JSON.stringify(jsonSchemaFor(file), null, 2) + '\n';
}
