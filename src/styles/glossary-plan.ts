import type { ServiceClient } from '../api/client.js';
import type { MultilingualGlossary } from '../api/glossaries.js';
import type { Logger } from '../log/logger.js';
import type { LoadedManifest, ResolvedGlossary } from '../manifest/types.js';
import type { DriftPolicy } from '../manifest/types.js';
import type { AppliedGlossary, GlossaryStateStore } from '../state/types.js';
import type { DictionaryChange, GlossaryContent } from './glossary-content.js';
import { diffCounts } from '../manifest/glossary-entries.js';
import type { Decision } from './reconciler.js';

// What the glossary reconciler decides and how it is told: the actions and drift of a plan, the
// symbols, headlines and entry lines people read, the error of drift under policy fail. Decided in
// glossary-kind.ts, applied in glossary-reconcile.ts.

export type GlossaryActionKind = 'create' | 'update' | 'delete' | 'adopt';

export interface GlossaryAction {
  kind: GlossaryActionKind;
  key: string;
  name: string;
  /** The existing glossary on the service (update, delete, adopt). */
  glossary_id?: string;
  /** From the service's content to the YAML's (adopt: from the YAML's to the service's). */
  changes: DictionaryChange[];
  /** A new name (update). */
  rename?: { from: string; to: string };
  notes: string[];
}

export interface GlossaryDrift {
  key: string;
  glossary_id: string;
  policy: DriftPolicy;
  /** What the service has that the YAML has not (from the YAML's content to the service's). */
  changes: DictionaryChange[];
  /** The YAML changed too since the last apply. */
  yamlChanged: boolean;
}

export interface GlossaryPlan {
  actions: GlossaryAction[];
  drift: GlossaryDrift[];
  /** Glossary key → glossary_id to send with uploads (glossaries still to be created: absent). */
  glossaryIds: Record<string, string>;
  /** Glossary key → the pairs whose entries change (or would change) in this run: their outputs are stale. */
  changedPairs: Record<string, string[]>;
  /** Applied with `blockDrifted`: glossaries drifted under policy fail, left alone (their targets wait). */
  blocked?: GlossaryDrift[];
}

export const GLOSSARY_SYMBOLS: Record<GlossaryActionKind, string> = {
  create: '+',
  update: '~',
  delete: '-',
  adopt: '<',
};

export interface GlossaryReconcileArgs {
  loaded: LoadedManifest;
  client: ServiceClient;
  state: GlossaryStateStore;
  apply: boolean;
  /** Only these glossary keys. */
  only?: string[];
  /** A one-off drift policy for this run, instead of each glossary's own. */
  drift?: DriftPolicy;
  logger?: Logger;
}

export type GlossaryDecision = Decision<
  ResolvedGlossary,
  AppliedGlossary,
  MultilingualGlossary,
  GlossaryContent,
  GlossaryAction,
  GlossaryDrift
>;

/** Drift under policy `fail`: someone changed glossaries on the service; nothing was modified. */
export class GlossaryDriftError extends Error {
  constructor(readonly drift: GlossaryDrift[]) {
    super(
      [
        `glossar${drift.length > 1 ? 'ies' : 'y'} changed on the service since locsync last applied ${drift.length > 1 ? 'them' : 'it'} (drift policy: fail); nothing was changed:`,
        ...drift.flatMap((d) => [
          `  ${glossaryDriftHeadline(d)}`,
          ...d.changes.flatMap((c) => dictionaryChangeLines(c, '      ')),
        ]),
        "Run again with --drift overwrite (make the service match the YAML) or --drift adopt (write the service's entries into the files), set the glossary's drift policy, or edit the files to match.",
      ].join('\n'),
    );
    this.name = 'GlossaryDriftError';
  }
}

export function glossaryDriftHeadline(d: GlossaryDrift): string {
  const side = d.yamlChanged ? ' (the YAML changed too: service vs YAML)' : '';
  return `${d.key}: entries changed on the service (glossary_id ${d.glossary_id}, policy ${d.policy})${side}`;
}

/** At most this many entries of a dictionary change are listed (the counts are always shown). */
const MAX_ENTRY_LINES = 10;

/** "~ en-de: 2 added, 1 changed" and the entries themselves, for people. */
export function dictionaryChangeLines(c: DictionaryChange, indent: string): string[] {
  const sym = c.op === 'add' ? '+' : c.op === 'remove' ? '-' : '~';
  const what =
    c.op === 'add' ? 'dictionary added' : c.op === 'remove' ? 'dictionary removed' : 'dictionary replaced';
  const lines = [`${indent}${sym} ${c.pair}: ${what} (${diffCounts(c.diff)})`];
  const entries = [
    ...c.diff.added.map(([s, t]) => `+ ${s} → ${t}`),
    ...c.diff.changed.map(([s, f, t]) => `~ ${s}: ${f} → ${t}`),
    ...c.diff.removed.map(([s, t]) => `- ${s} → ${t}`),
  ];
  for (const e of entries.slice(0, MAX_ENTRY_LINES)) lines.push(`${indent}    ${e}`);
  if (entries.length > MAX_ENTRY_LINES)
    lines.push(`${indent}    ... and ${entries.length - MAX_ENTRY_LINES} more`);
  return lines;
}
