import { isStringFormat } from '../documents/format-registry.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { SyncState } from '../state/types.js';
import { quoteSegments } from '../sync/segments/quote.js';
import type { Plan, TranslateAction } from '../sync/plan/types.js';

// What a string team gates CI on (docs/strings/README.md): per target language, how many keys of its
// string files are missing or outdated (their source value is not translated in the segment memory
// under today's settings), the count `plan` prices per file, summed for `status`.

export interface StringKeysPending {
  target: string;
  /** String files with at least one key to translate. */
  files: number;
  /** Keys missing or outdated: the values the next sync sends. */
  keys: number;
}

/** The plan's string-file translations, their keys to send counted per target language. */
export async function pendingStringKeys(
  loaded: LoadedManifest,
  state: Pick<SyncState, 'segments' | 'jobs'>,
  plan: Pick<Plan, 'actions'>,
): Promise<StringKeysPending[]> {
  const actions = plan.actions.filter(
    (a): a is TranslateAction => a.kind === 'translate' && isStringFormat(a.source.ext),
  );
  if (actions.length === 0) return [];
  const quotes = await quoteSegments(loaded, state, actions);
  const byTarget = new Map<string, StringKeysPending>();
  for (const a of actions) {
    const q = quotes.get(a.ref.output);
    if (!q || q.sent === 0) continue;
    const t = byTarget.get(a.ref.target) ?? { target: a.ref.target, files: 0, keys: 0 };
    t.files++;
    t.keys += q.sent;
    byTarget.set(a.ref.target, t);
  }
  return [...byTarget.values()].sort((a, b) => a.target.localeCompare(b.target));
}

/** The status lines: "String keys missing or outdated: de 3 (2 files) · pt-br 3 (2 files)". */
export function formatStringKeys(pending: readonly StringKeysPending[]): string[] {
  if (pending.length === 0) return [];
  const parts = pending.map((p) => `${p.target} ${p.keys} (${p.files} file${p.files === 1 ? '' : 's'})`);
  return [`String keys missing or outdated: ${parts.join(' · ')}`];
}
