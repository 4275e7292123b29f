import { chmod, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Document, isMap, isScalar, type Pair, type YAMLMap } from 'yaml';
import type { StyleRuleList } from '../api/types.js';
import type { ResolvedStyleList } from '../manifest/types.js';
import { YamlSource } from '../manifest/yaml-source.js';
import { remoteContent, type StyleContent } from './content.js';
import { mapIn, seqIn, YamlTextEditor } from './yaml-text-edit.js';

// Writing style lists back into YAML: `drift: adopt` edits the list where it is written (its own
// file or inline in the manifest) at the places in the text its values came from, so everything else
// stays byte for byte; `styles pull` writes new files or updates existing ones the same way.

function keyOf(pair: { key: unknown }): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => keyOf(p) === key) as Pair | undefined;
}

/** Make the mapping `node` hold `wanted` (one level of string values): only what differs is edited. */
function writeStringMap(ed: YamlTextEditor, node: YAMLMap, wanted: Record<string, string>): void {
  const keep = node.items.filter((p) => keyOf(p) in wanted);
  if (keep.length === 0 && Object.keys(wanted).length === 0) return ed.emptyMap(node);
  for (const pair of node.items) if (!(keyOf(pair) in wanted)) ed.removePair(node, pair as Pair);
  for (const [k, v] of Object.entries(wanted)) ed.setValue(node, k, v);
}

/** Make the list mapping `list` hold `content`, editing only what differs (see ./yaml-text-edit.ts). */
export function writeContent(ed: YamlTextEditor, list: YAMLMap, content: StyleContent, key: string): void {
  if (content.name !== key || list.has('name')) ed.setValue(list, 'name', content.name);
  ed.setValue(list, 'language', content.language);

  // configured_rules: category → rule → option.
  const rulesWanted = Object.entries(content.configured_rules).filter(([, r]) => r && Object.keys(r).length);
  const rules = mapIn(list.get('configured_rules', true));
  if (!rules) {
    if (rulesWanted.length) ed.addPair(list, 'configured_rules', Object.fromEntries(rulesWanted));
  } else if (rulesWanted.length === 0) {
    ed.removePair(list, pairOf(list, 'configured_rules')!);
  } else {
    for (const pair of rules.items) {
      if (!rulesWanted.some(([cat]) => cat === keyOf(pair))) ed.removePair(rules, pair as Pair);
    }
    for (const [cat, wanted] of rulesWanted) {
      const catMap = mapIn(rules.get(cat, true));
      if (catMap) writeStringMap(ed, catMap, wanted!);
      else ed.addPair(rules, cat, wanted);
    }
  }

  // custom_instructions, matched by label.
  const wanted = new Map(content.custom_instructions.map((i) => [i.label, i]));
  const seq = seqIn(list.get('custom_instructions', true));
  if (!seq) {
    if (content.custom_instructions.length > 0)
      ed.addPair(list, 'custom_instructions', content.custom_instructions);
    return;
  }
  if (content.custom_instructions.length === 0) {
    ed.removePair(list, pairOf(list, 'custom_instructions')!);
    return;
  }
  const present = new Set<string>();
  seq.items.forEach((item, i) => {
    const label = isMap(item) ? item.get('label') : undefined;
    const w = typeof label === 'string' ? wanted.get(label) : undefined;
    if (!w || present.has(w.label)) return ed.removeItem(seq, i);
    present.add(w.label);
    const map = item as YAMLMap;
    ed.setValue(map, 'prompt', w.prompt);
    if (w.source_language) ed.setValue(map, 'source_language', w.source_language);
    else if (map.has('source_language')) ed.removePair(map, pairOf(map, 'source_language')!);
  });
  for (const w of content.custom_instructions) if (!present.has(w.label)) ed.addItem(seq, w);
}

/** Write a file through a temp file and a rename, keeping the mode of the file it replaces. */
export async function writeAtomically(file: string, text: string): Promise<void> {
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
  const ed = new YamlTextEditor(source.text);
  writeContent(ed, node as YAMLMap, remoteContent(remote), list.key);
  await writeAtomically(list.file, ed.result());
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
    const ed = new YamlTextEditor(source.text);
    writeContent(ed, source.doc.contents as YAMLMap, content, '');
    const text = ed.result();
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
