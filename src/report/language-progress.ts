import type { SyncPlan } from '../sync/engine.js';
import { formatCount, formatPercent } from '../util/format.js';

// Per mapping and target language, how far the outputs are, like a TMS's status page: up to date,
// stale (an older version of the style list), pending (sync would translate, copy or collect it),
// failed (retried or given up), and the share up to date.

export interface LanguageProgress {
  mapping: string;
  target: string;
  /** Outputs the mapping should have for this language: one per supported source file. */
  outputs: number;
  upToDate: number;
  stale: number;
  pending: number;
  failed: number;
  /** Share of the outputs that are up to date, 0..100 (100 for a mapping with no files). */
  percent: number;
}

/**
 * Count the plan's items per (mapping, target). `files` is the number of supported source files
 * of each mapping; `targets` the target languages of each mapping (in manifest order).
 */
export function languageProgress(
  plan: Pick<SyncPlan, 'toTranslate' | 'toReuse' | 'toResume' | 'stale' | 'gaveUp'>,
  mappings: Array<{ name: string; targets: string[]; files: number }>,
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
  return mappings.flatMap((m) =>
    m.targets.map((target) => {
      const t = tally.get(key(m.name, target)) ?? { stale: 0, pending: 0, failed: 0 };
      const outputs = Math.max(m.files, t.stale + t.pending + t.failed);
      const upToDate = outputs - t.stale - t.pending - t.failed;
      return {
        mapping: m.name,
        target,
        outputs,
        upToDate,
        ...t,
        percent: outputs ? Math.floor((100 * upToDate) / outputs) : 100,
      };
    }),
  );
}

/** The table of `locsync status`. */
export function formatLanguageProgress(rows: LanguageProgress[]): string[] {
  const head = ['mapping', 'language', 'outputs', 'up to date', 'stale', 'pending', 'failed', 'done'];
  const body = rows.map((r) => [
    r.mapping,
    r.target,
    formatCount(r.outputs),
    formatCount(r.upToDate),
    formatCount(r.stale),
    formatCount(r.pending),
    formatCount(r.failed),
    formatPercent(r.upToDate, r.outputs || 1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    '  ' + cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...body.map(line)];
}
