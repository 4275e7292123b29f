import path from 'node:path';
import { describeChanges } from '../../documents/digest/compare.js';
import type { PartDigest } from '../../documents/digest/types.js';
import type { LoadedManifest } from '../../manifest/types.js';
import type { StoredDigest, SyncState } from '../../state/types.js';
import { ManifestFolders } from './folders.js';
import type { Plan, PlannedAction } from './types.js';

// `plan --why FILE`: what the plan does with one source file and why; for a changed document,
// which of its parts changed (from the per-part summaries kept with content digests).

/** The mapping and source-relative path of a file named on the command line. */
export function sourceOfPath(loaded: LoadedManifest, file: string): { mapping: string; relPath: string }[] {
  const folders = new ManifestFolders(loaded);
  const candidates = [path.resolve(file), path.resolve(loaded.dir, file)];
  const found: { mapping: string; relPath: string }[] = [];
  for (const m of loaded.manifest.mappings) {
    const root = folders.sourceOf(m);
    for (const abs of candidates) {
      const rel = path.relative(root, abs);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) {
        found.push({ mapping: m.name, relPath: rel.split(path.sep).join('/') });
        break;
      }
    }
  }
  return found;
}

function partsOf(d: StoredDigest | undefined): PartDigest[] | undefined {
  return d && d.digest !== '' ? (JSON.parse(d.parts) as PartDigest[]) : undefined;
}

/** The lines that explain one action of the plan. */
async function explain(
  a: PlannedAction,
  plan: Plan,
  state: SyncState,
  loaded: LoadedManifest,
): Promise<string[]> {
  const digestOf = async (sha: string) =>
    plan.observations.digests?.find((d) => d.sha256 === sha) ?? (await state.digests.get(sha));
  switch (a.kind) {
    case 'translate': {
      const head = `translate (billed): ${a.reason}`;
      if (a.reason !== 'changed' || a.doneId === undefined) return [head];
      const m = loaded.manifest.mappings.find((x) => x.name === a.ref.mapping);
      if (m?.change_detection === 'bytes') return [`${head}: its bytes changed (change_detection: bytes)`];
      const then = (await state.jobs.get(a.doneId))?.sha256;
      const before = then ? partsOf(await digestOf(then)) : undefined;
      const after = partsOf(await digestOf(a.source.sha256));
      if (!after && a.settings.request.segments) return sentSegments(head, a, state, loaded);
      if (!after) return [`${head}: its bytes changed (.${a.source.ext} files have no content digest)`];
      if (!before)
        return [
          `${head}: its bytes changed; what its output was translated from has no content digest (translated before locsync kept them), so any change counts`,
        ];
      return [
        `${head}; what changed since its output was made:`,
        ...describeChanges(before, after).map((l) => `  ${l}`),
      ];
    }
    case 'resaved':
      return ['re-saved, content unchanged: the output stays, nothing is uploaded'];
    case 'reuse':
      return [`copied from ${a.from} (identical content and settings, not billed)`];
    case 'resume':
      return ['an upload of an earlier run is collected (billed once, when collected)'];
    case 'stale':
      return [`stale (${a.because ?? a.reason}): kept; --retranslate stale re-translates it (billed)`];
    case 'skip':
      return [`skipped (${a.reason}): ${a.message}`];
    case 'delete':
      return ['its source was deleted: the output is deleted'];
    case 'forget':
      return [];
  }
}

/** Lines about one output's segments at most; the rest is counted. */
const MAX_SEGMENT_LINES = 10;

/**
 * A segment-path translation of a file without a content digest (a string file): what changed is
 * what the segment memory does not hold, the segments the plan sends, each with its line.
 */
async function sentSegments(
  head: string,
  a: Extract<PlannedAction, { kind: 'translate' }>,
  state: SyncState,
  loaded: LoadedManifest,
): Promise<string[]> {
  const { quoteSegments } = await import('../segments/quote.js');
  const sent: string[] = [];
  let count = 0;
  await quoteSegments(loaded, state, [a], {
    sends: (_, s) => {
      if (count++ < MAX_SEGMENT_LINES) sent.push(s.line ? `line ${s.line} (${s.where})` : s.where);
    },
  });
  if (count === 0)
    return [`${head}: its bytes changed; the segment memory holds every segment: nothing is sent`];
  return [
    `${head}; what the segment memory does not hold (new or changed since), sent:`,
    ...sent.map((l) => `  ${l}`),
    ...(count > sent.length ? [`  and ${count - sent.length} more`] : []),
  ];
}

/** `plan --why FILE` as text: per output of the file, what the plan does and why. */
export async function whyText(
  plan: Plan,
  state: SyncState,
  loaded: LoadedManifest,
  file: string,
): Promise<string> {
  const sources = sourceOfPath(loaded, file);
  if (sources.length === 0) return `${file} is not in the source folder of any mapping of ${loaded.path}`;
  const lines: string[] = [];
  for (const { mapping, relPath } of sources) {
    const actions = plan.actions.filter((a) =>
      a.kind === 'forget'
        ? a.mapping === mapping && a.file === relPath
        : a.ref.mapping === mapping && a.ref.file === relPath,
    );
    const skipped = [...plan.skipped, ...plan.unsupported].filter(
      (s) => s.mapping === mapping && s.file === relPath,
    );
    lines.push(`${mapping}: ${relPath}`);
    for (const s of skipped) lines.push(`  not translated (${s.reason}): ${s.message}`);
    for (const a of actions) {
      if (a.kind === 'forget') continue;
      const [first = '', ...rest] = await explain(a, plan, state, loaded);
      lines.push(`  ${a.ref.target} → ${a.ref.output}: ${first}`, ...rest.map((l) => `    ${l}`));
    }
    if (actions.length === 0 && skipped.length === 0)
      lines.push('  every output is up to date with this content and these settings: nothing to do');
  }
  return lines.join('\n');
}
