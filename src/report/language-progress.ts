import type { SyncPlan } from '../sync/engine.js';
import { formatCount } from '../util/format.js';

// Per mapping and target language, how far the outputs are, like a TMS's status page: up to date,
// flagged by the output checks (delivered, for a person to look at), stale (an older version of the
// style list), pending (sync would translate, copy or collect it), failed (retried, given up, or
// failed the output checks), and the share delivered. A language with a failed output is never
// 100% done.

export interface LanguageProgress {
  mapping: string;
  target: string;
  /** Outputs the mapping should have for this language: one per supported source file. */
  outputs: number;
  upToDate: number;
  /** Delivered, flagged by the output checks (docs/qa.md): not counted as up to date. */
  flagged: number;
  stale: number;
  pending: number;
  failed: number;
  /** Share of the outputs delivered (up to date or flagged), 0..100, below 100 while one failed. */
  percent: number;
}

/**
 * Count the plan's items per (mapping, target). `files` is the number of supported source files
 * of each mapping; `targets` the target languages of each mapping (in manifest order).
 */
export function languageProgress(
  plan: Pick<SyncPlan, 'toTranslate' | 'toReuse' | 'toResume' | 'stale' | 'gaveUp' | 'qaFailed'>,
  mappings: Array<{ name: string; targets: string[]; files: number }>,
  /** The outputs the output checks flagged (their last verdict). */
  flagged: ReadonlyArray<{ mapping: string; target: string }> = [],
): LanguageProgress[] {
  const key = (mapping: string, target: string) => `${mapping}\u0000${target}`;
  const tally = new Map<string, { stale: number; pending: number; failed: number }>();
  const add = (items: Array<{ mapping: string; target: string }>, what: 'stale' | 'pending' | 'failed') => {
    for (const i of items) {
      const k = key(i.mapping, i.target);
      const t = tally.get(k) ?? { stale: 0, pending: 0, failed: 0 };
      t[what]++;
      tally.set(k, t);
    }
  };
  // A document that failed on an earlier run and will be tried again counts as failed until it is done.
  add(
    plan.toTranslate.filter((t) => t.why !== 'retry'),
    'pending',
  );
  add(
    plan.toTranslate.filter((t) => t.why === 'retry'),
    'failed',
  );
  add(plan.toReuse, 'pending');
  add(plan.toResume, 'pending');
  add(plan.stale, 'stale');
  add(plan.gaveUp, 'failed');
  // Failed the output checks: not delivered, and not bought again unless asked (docs/qa.md).
  add(plan.qaFailed, 'failed');
  const flaggedOf = new Map<string, number>();
  for (const f of flagged)
    flaggedOf.set(key(f.mapping, f.target), (flaggedOf.get(key(f.mapping, f.target)) ?? 0) + 1);
  return mappings.flatMap((m) =>
    m.targets.map((target) => {
      const t = tally.get(key(m.name, target)) ?? { stale: 0, pending: 0, failed: 0 };
      const outputs = Math.max(m.files, t.stale + t.pending + t.failed);
      const delivered = outputs - t.stale - t.pending - t.failed;
      // A flagged output planned again (its source changed) is pending, not flagged.
      const flaggedHere = Math.min(flaggedOf.get(key(m.name, target)) ?? 0, delivered);
      return {
        mapping: m.name,
        target,
        outputs,
        upToDate: delivered - flaggedHere,
        flagged: flaggedHere,
        ...t,
        percent: outputs ? Math.floor((100 * delivered) / outputs) : 100,
      };
    }),
  );
}

/** The table of `locsync status`. */
export function formatLanguageProgress(rows: LanguageProgress[]): string[] {
  const head = [
    'mapping',
    'language',
    'outputs',
    'up to date',
    'flagged',
    'stale',
    'pending',
    'failed',
    'done',
  ];
  const body = rows.map((r) => [
    r.mapping,
    r.target,
    formatCount(r.outputs),
    formatCount(r.upToDate),
    formatCount(r.flagged),
    formatCount(r.stale),
    formatCount(r.pending),
    formatCount(r.failed),
    `${r.percent}%`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    '  ' + cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...body.map(line)];
}
