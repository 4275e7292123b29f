import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import {
  RULE_CATEGORIES,
  type ConfiguredRules,
  type CustomInstructionInput,
  type StyleLanguage,
  type StyleRuleList,
} from '../api/types.js';
import type { ResolvedStyleList } from '../manifest/types.js';

// The content of a style list, as the YAML wants it and as the service has it, in one comparable
// form; its hash; and the differences between two contents.

export interface StyleContent {
  name: string;
  language: StyleLanguage;
  configured_rules: ConfiguredRules;
  custom_instructions: CustomInstructionInput[];
}

/**
 * Rules without empty categories, categories in the spec's order. A list of category objects (one
 * schema description of the spec types configured_rules so) is merged into one object.
 */
export function normaliseRules(
  rules: ConfiguredRules | ConfiguredRules[] | undefined | null,
): ConfiguredRules {
  const merged: ConfiguredRules = {};
  for (const part of Array.isArray(rules) ? rules : rules ? [rules] : []) {
    for (const cat of RULE_CATEGORIES) if (part[cat]) merged[cat] = { ...merged[cat], ...part[cat] };
  }
  const out: ConfiguredRules = {};
  for (const cat of RULE_CATEGORIES) {
    const r = merged[cat];
    if (r && Object.keys(r).length > 0) out[cat] = r;
  }
  return out;
}

function instruction(i: CustomInstructionInput): CustomInstructionInput {
  return {
    label: i.label,
    prompt: i.prompt,
    ...(i.source_language ? { source_language: i.source_language } : {}),
  };
}

export function desiredContent(list: ResolvedStyleList): StyleContent {
  return {
    name: list.name,
    language: list.language,
    configured_rules: normaliseRules(list.configured_rules),
    custom_instructions: list.custom_instructions.map(instruction),
  };
}

export function remoteContent(list: StyleRuleList): StyleContent {
  return {
    name: list.name,
    language: list.language,
    configured_rules: normaliseRules(list.configured_rules as ConfiguredRules | ConfiguredRules[] | null),
    custom_instructions: (list.custom_instructions ?? []).map(instruction),
  };
}

/**
 * sha256 of the canonical JSON of what shapes translations: language, rules and instructions (keys
 * sorted; instructions by label, since they are matched by label and their order on the service is
 * not ours to choose). The name is left out: renaming a list does not make its outputs stale.
 */
export function contentHash(c: StyleContent): string {
  const canonical = {
    language: c.language,
    configured_rules: c.configured_rules,
    custom_instructions: [...c.custom_instructions].sort((a, b) =>
      a.label < b.label ? -1 : a.label > b.label ? 1 : 0,
    ),
  };
  return createHash('sha256').update(stringify(canonical)).digest('hex');
}

/** One difference, read as "to get from `from` to `to`". */
export interface StyleChange {
  what: 'name' | 'language' | 'rule' | 'instruction';
  op: 'add' | 'change' | 'remove';
  /** "punctuation.quotation_mark", an instruction label; the field name for name/language. */
  key: string;
  from?: string;
  to?: string;
}

export function flattenRules(rules: ConfiguredRules): Map<string, string> {
  const out = new Map<string, string>();
  for (const [cat, r] of Object.entries(rules)) {
    for (const [rule, option] of Object.entries(r ?? {})) out.set(`${cat}.${rule}`, option);
  }
  return out;
}

function instructionText(i: CustomInstructionInput): string {
  return i.source_language ? `${i.prompt} (source: ${i.source_language})` : i.prompt;
}

/** Instructions by label; a label used twice keeps its first occurrence. */
export function byLabel<T extends CustomInstructionInput>(list: T[]): Map<string, T> {
  const out = new Map<string, T>();
  for (const i of list) if (!out.has(i.label)) out.set(i.label, i);
  return out;
}

export function sameInstruction(a: CustomInstructionInput, b: CustomInstructionInput): boolean {
  return a.prompt === b.prompt && (a.source_language ?? '') === (b.source_language ?? '');
}

/** What must change to turn `from` into `to`. Empty: the same content. */
export function diffContent(from: StyleContent, to: StyleContent): StyleChange[] {
  const changes: StyleChange[] = [];
  if (from.name !== to.name)
    changes.push({ what: 'name', op: 'change', key: 'name', from: from.name, to: to.name });
  if (from.language !== to.language)
    changes.push({ what: 'language', op: 'change', key: 'language', from: from.language, to: to.language });

  const a = flattenRules(from.configured_rules);
  const b = flattenRules(to.configured_rules);
  for (const [k, v] of b) {
    const old = a.get(k);
    if (old === undefined) changes.push({ what: 'rule', op: 'add', key: k, to: v });
    else if (old !== v) changes.push({ what: 'rule', op: 'change', key: k, from: old, to: v });
  }
  for (const [k, v] of a) if (!b.has(k)) changes.push({ what: 'rule', op: 'remove', key: k, from: v });

  const ia = byLabel(from.custom_instructions);
  const ib = byLabel(to.custom_instructions);
  for (const [label, i] of ib) {
    const old = ia.get(label);
    if (!old) changes.push({ what: 'instruction', op: 'add', key: label, to: instructionText(i) });
    else if (!sameInstruction(old, i))
      changes.push({
        what: 'instruction',
        op: 'change',
        key: label,
        from: instructionText(old),
        to: instructionText(i),
      });
  }
  for (const [label, i] of ia)
    if (!ib.has(label))
      changes.push({ what: 'instruction', op: 'remove', key: label, from: instructionText(i) });
  // Labels the service holds twice (lists made elsewhere): the extra copies go.
  const extra = from.custom_instructions.length - ia.size;
  if (extra > 0 && to.custom_instructions.length === ib.size) {
    const seen = new Set<string>();
    for (const i of from.custom_instructions) {
      if (seen.has(i.label))
        changes.push({
          what: 'instruction',
          op: 'remove',
          key: `${i.label} (duplicate)`,
          from: instructionText(i),
        });
      seen.add(i.label);
    }
  }
  return changes;
}

/** The content of a change list as plain lines ("+ rule punctuation.quotation_mark = curly"). */
export function describeChange(c: StyleChange): string {
  const what =
    c.what === 'instruction' ? `instruction '${c.key}'` : c.what === 'rule' ? `rule ${c.key}` : c.what;
  switch (c.op) {
    case 'add':
      return `+ ${what}: ${c.to}`;
    case 'remove':
      return `- ${what}: ${c.from}`;
    default:
      return `~ ${what}: ${c.from} → ${c.to}`;
  }
}
