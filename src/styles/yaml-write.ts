import { chmod, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Document, isMap, isScalar, isSeq, type YAMLMap, type YAMLSeq } from 'yaml';
import type { StyleRuleList } from '../api/types.js';
import type { ResolvedStyleList } from '../manifest/types.js';
import { YamlSource } from '../manifest/yaml-source.js';
import { remoteContent, type StyleContent } from './content.js';

// Writing style lists back into YAML: `drift: adopt` edits the list where it is written (its own
// file or inline in the manifest) in place with yaml's Document API, so comments and the order of
// what stays are kept; `styles pull` writes new files or updates existing ones the same way.

/** Set a scalar in place (a scalar node keeps its comments), or add the key at the end. */
function setValue(doc: Document, map: YAMLMap, key: string, value: string): void {
  const node = map.get(key, true);
  if (isScalar(node)) {
    if (node.value !== value) node.value = value;
  } else map.set(doc.createNode(key), doc.createNode(value));
}

function mapAt(doc: Document, parent: YAMLMap, key: string): YAMLMap {
  const node = parent.get(key, true);
  if (isMap(node)) return node as YAMLMap;
  const created = doc.createNode({}) as YAMLMap;
  parent.set(doc.createNode(key), created);
  return created;
}

function keyOf(pair: { key: unknown }): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

/** Make the list mapping `list` hold `content`, touching only what differs. */
export function writeContent(doc: Document, list: YAMLMap, content: StyleContent, key: string): void {
  if (content.name !== key || list.has('name')) setValue(doc, list, 'name', content.name);
  setValue(doc, list, 'language', content.language);

  // configured_rules: category → rule → option.
  const rulesWanted = Object.entries(content.configured_rules);
  if (rulesWanted.length > 0 || isMap(list.get('configured_rules', true))) {
    const rules = mapAt(doc, list, 'configured_rules');
    for (const pair of [...rules.items]) {
      if (!content.configured_rules[keyOf(pair) as keyof StyleContent['configured_rules']])
        rules.delete(pair.key);
    }
    for (const [cat, wanted] of rulesWanted) {
      const catMap = mapAt(doc, rules, cat);
      for (const pair of [...catMap.items]) if (!(keyOf(pair) in (wanted ?? {}))) catMap.delete(pair.key);
      for (const [rule, option] of Object.entries(wanted ?? {})) setValue(doc, catMap, rule, option);
    }
    if (rules.items.length === 0) list.delete('configured_rules');
  }

  // custom_instructions, matched by label.
  const wanted = new Map(content.custom_instructions.map((i) => [i.label, i]));
  const seqNode = list.get('custom_instructions', true);
  if (!isSeq(seqNode)) {
    if (content.custom_instructions.length > 0)
      list.set(doc.createNode('custom_instructions'), doc.createNode(content.custom_instructions));
    return;
  }
  const seq = seqNode as YAMLSeq;
  const present = new Set<string>();
  for (let i = seq.items.length - 1; i >= 0; i--) {
    const item = seq.items[i];
    const label = isMap(item) ? item.get('label') : undefined;
    const w = typeof label === 'string' ? wanted.get(label) : undefined;
    if (!w || present.has(w.label)) {
      seq.delete(i);
      continue;
    }
    present.add(w.label);
  }
  for (const item of seq.items) {
    if (!isMap(item)) continue;
    const w = wanted.get(String(item.get('label')))!;
    setValue(doc, item as YAMLMap, 'prompt', w.prompt);
    if (w.source_language) setValue(doc, item as YAMLMap, 'source_language', w.source_language);
    else item.delete('source_language');
  }
  for (const w of content.custom_instructions) if (!present.has(w.label)) seq.add(doc.createNode(w));
  if (seq.items.length === 0) list.delete('custom_instructions');
}

/** Write a file through a temp file and a rename, keeping the mode of the file it replaces. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const mode = await stat(file).then(
    (s) => s.mode & 0o777,
    () => undefined,
  );
  await writeFile(tmp, text);
  if (mode !== undefined) await chmod(tmp, mode);
  await rename(tmp, file);
}

/** `drift: adopt`: write the service's state of a list into the YAML it is written in. */
export async function adoptIntoYaml(list: ResolvedStyleList, remote: StyleRuleList): Promise<void> {
  const source = await YamlSource.read(list.file);
  const node = list.yamlPath.length ? source.doc.getIn(list.yamlPath, true) : source.doc.contents;
  if (!isMap(node)) throw new Error(`style list '${list.key}' is not a mapping in ${list.file}`);
  writeContent(source.doc, node as YAMLMap, remoteContent(remote), list.key);
  await writeAtomically(list.file, source.doc.toString());
}

/**
 * `styles pull`: a style list file for a list of the service. An existing file is updated in
 * place (comments kept); a new one gets a header saying where it came from.
 */
export async function writeStyleListFile(
  file: string,
  remote: StyleRuleList,
  opts: { key: string; schemaPath?: string },
): Promise<'created' | 'updated' | 'unchanged'> {
  const content = remoteContent(remote);
  let source: YamlSource | undefined;
  try {
    source = await YamlSource.read(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (source && isMap(source.doc.contents)) {
    writeContent(source.doc, source.doc.contents as YAMLMap, content, '');
    const text = source.doc.toString();
    if (text === source.text) return 'unchanged';
    await writeAtomically(file, text);
    return 'updated';
  }
  const doc = new Document({
    name: content.name,
    language: content.language,
    drift: 'fail',
    ...(Object.keys(content.configured_rules).length ? { configured_rules: content.configured_rules } : {}),
    ...(content.custom_instructions.length ? { custom_instructions: content.custom_instructions } : {}),
  });
  const schema = opts.schemaPath
    ? path.relative(path.dirname(file), opts.schemaPath).split(path.sep).join('/')
    : undefined;
  doc.commentBefore = [
    ` Style list "${remote.name}" pulled from the service (style_id ${remote.style_id}, version ${remote.version}).`,
    ` Use it from the manifest: style_lists: { ${opts.key}: { file: <this file> } }`,
    ...(schema ? [` yaml-language-server: $schema=${schema}`] : []),
  ].join('\n');
  await writeAtomically(file, doc.toString());
  return 'created';
}
