import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { manifestDocs } from './docs.js';
import { SCHEMA_FILES, jsonSchemaText, type SchemaFile } from './json-schema.js';

// `npm run schema`: rewrite the committed JSON Schemas and docs/manifest.md from the zod schema.
const root = fileURLToPath(new URL('../..', import.meta.url));
const outputs: Array<[string, string]> = [
  ...(Object.keys(SCHEMA_FILES) as SchemaFile[]).map((f): [string, string] => [f, jsonSchemaText(f)]),
  ['docs/manifest.md', manifestDocs()],
];
for (const [file, text] of outputs) {
  await writeFile(path.join(root, file), text);
  console.log(`wrote ${file}`);
}
