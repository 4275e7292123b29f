import { jsonSchemaFor } from './json-schema.js';
import { EXIT } from '../util/errors.js';
import { OUTPUT_PLACEHOLDERS } from './sections/mapping.js';

// docs/manifest.md, generated from the same zod schema (through its JSON Schema) so that the
// reference cannot fall behind it. `npm run schema` rewrites it; a test fails when it is stale.

interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
}

interface Row {
  key: string;
  type: string;
  def: string;
  description: string;
}

const SAFE_INT = Number.MAX_SAFE_INTEGER;

function typeOf(s: JsonSchema): string {
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  // A tab is shown as \t and a pipe escaped, so that an enum of characters (csv.delimiter) keeps the table.
  if (s.enum)
    return s.enum.map((v) => `\`${String(v).replaceAll('\t', '\\t').replaceAll('|', '\\|')}\``).join(' \\| ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  const limits: string[] = [];
  if (s.minimum !== undefined) limits.push(`≥ ${s.minimum}`);
  if (s.exclusiveMinimum !== undefined) limits.push(`> ${s.exclusiveMinimum}`);
  if (s.maximum !== undefined && s.maximum < SAFE_INT) limits.push(`≤ ${s.maximum}`);
  if (s.minLength !== undefined && s.minLength > 1) limits.push(`≥ ${s.minLength} chars`);
  if (s.maxLength !== undefined) limits.push(`≤ ${s.maxLength} chars`);
  if (s.minItems !== undefined) limits.push(`≥ ${s.minItems} entries`);
  if (s.maxItems !== undefined) limits.push(`≤ ${s.maxItems} entries`);
  if (s.format === 'uri') limits.push('URL');
  let base: string;
  switch (s.type) {
    case 'array':
      base = s.items?.properties ? 'list of mappings' : `list of ${s.items ? typeOf(s.items) : 'values'}`;
      break;
    case 'object':
      base = 'mapping';
      break;
    case 'integer':
      base = 'whole number';
      break;
    default:
      base = String(s.type ?? 'any');
  }
  return limits.length ? `${base} (${limits.join(', ')})` : base;
}

function defaultOf(s: JsonSchema, required: boolean): string {
  if (s.default === undefined) return required ? '**required**' : '—';
  if (s.default !== null && typeof s.default === 'object' && !Array.isArray(s.default)) {
    return Object.keys(s.default).length === 0 ? `\`${JSON.stringify(s.default)}\`` : '(see keys below)';
  }
  return `\`${JSON.stringify(s.default)}\``;
}

function rowsOf(schema: JsonSchema, prefix: string, out: Row[]): void {
  for (const [key, s] of Object.entries(schema.properties ?? {})) {
    const path = `${prefix}${key}`;
    const required = schema.required?.includes(key) ?? false;
    out.push({
      key: `\`${path}\``,
      type: typeOf(s),
      def: defaultOf(s, required),
      description: s.description ?? '',
    });
    if (s.properties) rowsOf(s, `${path}.`, out);
    if (s.type === 'array' && s.items?.properties) rowsOf(s.items, `${path}[].`, out);
    const values = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    if (values?.anyOf) values.anyOf.forEach((branch) => rowsOf(branch, `${path}.<key>.`, out));
    else if (values?.properties) rowsOf(values, `${path}.<key>.`, out);
  }
}

function table(rows: Row[]): string {
  const esc = (t: string) => t.replaceAll('|', '\\|').replaceAll('\n', ' ');
  return [
    '| Key | Type | Default | Meaning |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.key} | ${r.type} | ${r.def} | ${esc(r.description)} |`),
  ].join('\n');
}

const CHECKS = [
  "unknown keys (with the nearest known key: `unknown key 'taregts' (did you mean 'targets'?)`, or the section a key belongs in: `unknown key 'concurrency'; it belongs under service:`), wrong types, values outside their range, YAML syntax errors and duplicate keys;",
  "YAML indentation mistakes at the line to fix, in words: `this line is indented more than the key above it ('name' on line 4, which has a value): start 'source' in column 5, as 'name'`; a list item whose `-` is not under the one above it;",
  "unknown languages (`lang`, `source_lang`, a style list's `language`, an instruction's `source_language`) with the code meant: `FR`, `pt_BR` → `fr`, `pt-br`; a region the service has no target for, `fr-FR` → `fr`; a country code, `gr` → `el`; targets written as bare languages (`- de` instead of `- lang: de`);",
  "a target's style list of another language (a list's language must be the target's base language: a `de` list for `de`, an `en` list for `en-gb`; lists exist for de, en, es, fr, it, ja, ko and zh), and a target naming a style list that does not exist;",
  '`formality: more` or `less` on a target other than DE, FR, IT, ES, NL, PL, PT-BR, PT-PT, JA, RU (use `prefer_more` / `prefer_less`);',
  "a target language equal to the mapping's `source_lang`; `glossary_id` without `source_lang`;",
  '`output_format` other than `docx` (the only conversion: pdf → docx);',
  'output patterns: unknown placeholders, unbalanced braces, no file placeholder (`{path}`, `{name}` or `{stem}`), a pattern without `{lang}` used by several targets, two mappings or targets writing the same paths, the output folder of a target inside a source folder or a source folder inside it (`content/en` → `content/{lang}/{path}` is fine), an output that is its source file itself unless every file of the mapping is a String Catalog (`.xcstrings`, whose targets are written into it: docs/strings/xcstrings.md);',
  'duplicate mapping names; duplicate custom instruction labels in one list (instructions are matched by label);',
  `more than 200 custom instructions in a list, a name over 1024, a label over 100 or a prompt over 300 characters;`,
  'style lists on the free plan; a style list file that is missing or invalid (the error names that file and line);',
  'a missing `service.local.phrasebook`, a state file inside a source folder, a mapping name with `/` used by `{mapping}`.',
];

/** The text of docs/manifest.md. */
export function manifestDocs(): string {
  const manifestRows: Row[] = [];
  rowsOf(jsonSchemaFor('schema/pipeline.schema.json') as JsonSchema, '', manifestRows);
  const placeholders = Object.entries(OUTPUT_PLACEHOLDERS)
    .map(([k, v]) => `| \`{${k}}\` | ${v} |`)
    .join('\n');
  return `<!-- Generated from src/manifest/schema.ts by \`npm run schema\`; do not edit by hand. -->

# The pipeline manifest

A YAML file (\`pipeline.yaml\`; \`locsync -c FILE\` picks another) that says which folders are translated
into which languages, with which style lists, and where the outputs go. Paths are relative to the
manifest's folder. [\`pipeline.example.yaml\`](../pipeline.example.yaml) shows every feature.

Editors validate it with [\`schema/pipeline.schema.json\`](../schema/pipeline.schema.json)
(first line: \`# yaml-language-server: $schema=./schema/pipeline.schema.json\`); style list files with
[\`schema/style-list.schema.json\`](../schema/style-list.schema.json). Both are generated from the same
zod schema as this page.

## Keys

${table(manifestRows)}

A style list kept in its own file (\`style_lists.<key>: { file: styles/fr.yaml }\`) holds the keys
\`name\`, \`language\`, \`drift\`, \`configured_rules\` and \`custom_instructions\` at its top level, one list per file.

## Output path placeholders

| Placeholder | Value |
|---|---|
${placeholders}

Outputs never leave the fixed folder before a pattern's first placeholder (\`out\` in \`out/{lang}/{path}\`):
a file whose path would make them do so is reported and skipped.

## Checks

\`locsync validate [-c pipeline.yaml] [--json]\` checks the manifest and its style list files without
calling the service and lists every problem on stdout as \`file:line:column: message\` (with \`--json\`, one JSON
document with \`valid\`, \`errors\` and \`warnings\`; exit 0 valid, 2 invalid):

${CHECKS.map((c) => `- ${c}`).join('\n')}

Warnings (\`file:line:column: warning: ...\`, exit 0): a style list no target uses, a source folder that
does not exist, an output pattern with neither \`{dir}\` nor \`{path}\` (files of different sub-folders
with the same name would collide; not for a mapping of one file, \`include: [en.json]\`, nor for
\`{name}\` or \`{stem}\` when every include pattern stays at the top of the folder, \`include: ['*.pot']\`),
a target of \`en\`, \`pt\` or \`zh\` without its regional variant (the service chooses it: write
\`pt-br\` or \`pt-pt\`).

## Style lists on the service

\`locsync plan\` shows what \`locsync styles apply\` (and \`sync\`, which applies first) would change:
\`+\` create, \`~\` update in place (name and rules by PATCH, or PUT of all rules when one was removed;
custom instructions matched by label: added, replaced, deleted), \`-/+\` replace (a service without
a PUT of rules: a new list is created, targets use it, the old one is deleted), \`-\` delete.
locsync records the \`style_id\`, the \`version\` and a hash of the rules (language, configured rules,
custom instructions: a rename alone does not make outputs stale) of each list after applying it. When the service's version differs
later, someone changed the list elsewhere (drift), and the list's \`drift\` policy decides: \`fail\`
(default: stop and show what changed), \`overwrite\` (make it match the YAML), \`adopt\` (write the
service's state back into the YAML file: only the adopted values change, every other byte stays).
\`--drift fail|overwrite|adopt\` on \`plan\`, \`styles apply\` and \`sync\` chooses for one run. A list deleted on the service is
created again. \`locsync styles pull [--out DIR]\` writes every list of the service, including ones
made in the web UI, as one YAML file each, ready to commit and reference with \`file:\`; a file
that exists is updated in place (comments kept). A list in the manifest with no record in the state
is looked up on the service by name and language and taken over, so pulled lists are not created twice.

## Glossaries

\`glossaries.<key>\` holds entries per language pair (\`en-de\`, base languages: a de glossary serves
de targets, pt serves pt-br): inline under \`entries:\` (source term: target term) or in CSV
(\`source,target\`) or TSV (\`source<TAB>target\`) files under \`files:\`, relative to the manifest
(\`files: { en-de: glossaries/terms.en-de.csv }\`). A target uses one by key (\`glossary: terms\`), which
needs the mapping's \`source_lang\` and a dictionary for the pair (source_lang, target language);
\`glossary_id\` keeps working for glossaries managed elsewhere. Validation names the file and line of
a bad entry: an empty side, whitespace around a term, a control character, a source term given twice,
a pair the service has no glossaries for. A file's first line that names its columns (two header
words among \`source\`, \`target\`, \`term\`, \`translation\`, or the pair's language codes, \`en,de\`) is
a header, not an entry: it is skipped, \`validate\` prints a note naming it, and \`drift: adopt\` keeps
it. A glossary whose real first term reads like that says \`header: false\` (every line an entry);
\`header: true\` skips the first line of each file whatever it says.

\`plan\` shows glossary changes next to the style lists: \`+\` create, \`~\` update (each changed
dictionary replaced, with the counts of entries added, removed and changed), \`-\` delete, \`<\` adopt.
The service keeps no version of a glossary: locsync records a hash of each dictionary as applied, and a
remote hash that differs later is drift, handled by the glossary's \`drift\` policy (or \`--drift\`)
like a style list's; \`adopt\` rewrites only the changed lines of the CSV/TSV files (or inline entries).
A dictionary's entries are part of its targets' settings: editing them makes those outputs stale
("glossary changed"; \`sync --retranslate stale\` re-translates them, billed); other pairs' outputs are
not affected. \`locsync glossaries pull [--out DIR] [--format csv|tsv]\` writes every glossary of the
service as one file per pair.

\`locsync plan --detailed-exitcode\` exits ${EXIT.ok} when nothing would change, ${EXIT.changes} when changes (or drift)
are pending, ${EXIT.usage} on a usage or manifest error and ${EXIT.failed} on any other error; \`--json\` prints \`{ styles: { actions, drift, styleIds, changedKeys,
summary }, glossaries: { actions, drift, glossaryIds, changedPairs, summary }, files, changes }\`.
\`locsync styles apply [--only KEY...] [--drift POLICY] [--dry-run] [--yes] [--json]\` applies style lists
and glossaries alone: it shows the plan, asks before deleting anything on the service (off a terminal
it needs \`--yes\`), and \`--json\` prints \`{ plan, applied }\`.
`;
}
