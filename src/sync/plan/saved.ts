import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { ConfigError } from '../../util/errors.js';

// A plan saved for review (`plan -out plan.json`) and applied later (`sync --plan plan.json`), the
// review-then-apply workflow of terraform: the file holds the planned actions with their prices, the
// inputs they were made from and a token of the state. Applying re-plans and compares: only when
// every action is the same (same sources by content, same settings, same state) is it carried out.

export const SAVED_PLAN_FORMAT = 'locsync-plan';
export const SAVED_PLAN_VERSION = 1;

/** The fields of a planned action that decide whether two plans do the same thing. */
export interface ComparableAction {
  kind: string;
  ref?: { mapping: string; file: string; target: string; output: string };
  mapping?: string;
  file?: string;
  reason?: string;
  from?: string;
  jobId?: number;
  source?: { sha256: string };
  settings?: { fingerprint: string };
}

export interface SavedPlan<P> {
  format: typeof SAVED_PLAN_FORMAT;
  version: typeof SAVED_PLAN_VERSION;
  created_at: string;
  /** Absolute path of the manifest the plan was made with, and the sha256 of its text. */
  manifest: { path: string; sha256: string };
  /** What the state held when the plan was made (see stateToken). */
  state_token: string;
  plan: P;
}

export function sha256Text(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Writes the saved plan (mode 0644: it holds no secret, only paths, hashes and prices). */
export function writeSavedPlan<P>(file: string, saved: SavedPlan<P>): void {
  fs.writeFileSync(file, JSON.stringify(saved, null, 2) + '\n');
}

/** Reads a saved plan; ConfigError naming the file when it is not one. */
export function readSavedPlan<P>(file: string): SavedPlan<P> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`--plan ${file}: cannot read a saved plan (${(err as Error).message})`, { file });
  }
  const p = parsed as Partial<SavedPlan<P>>;
  if (p.format !== SAVED_PLAN_FORMAT || p.version !== SAVED_PLAN_VERSION || !p.plan || !p.manifest)
    throw new ConfigError(
      `--plan ${file}: not a plan saved by this locsync (make one with \`locsync plan -out ${file}\`)`,
      { file },
    );
  return p as SavedPlan<P>;
}

function identity(a: ComparableAction): string {
  if (a.ref) return `out|${a.ref.mapping}|${a.ref.file}|${a.ref.target}|${a.ref.output}`;
  return `${a.kind}|${a.mapping ?? ''}|${a.file ?? ''}`;
}

function describe(a: ComparableAction): string {
  const where = a.ref ? `${a.ref.mapping}/${a.ref.file} → ${a.ref.output}` : `${a.mapping}/${a.file}`;
  return `${where} (${a.kind}${a.reason ? `, ${a.reason}` : ''})`;
}

/**
 * What differs between the saved actions and a fresh plan's, one line each ("source changed",
 * "settings changed", "planned now but not in the saved plan" ...); empty when they do the same.
 */
export function planDifferences(
  saved: readonly ComparableAction[],
  fresh: readonly ComparableAction[],
): string[] {
  const before = new Map(saved.map((a) => [identity(a), a]));
  const out: string[] = [];
  for (const a of fresh) {
    const id = identity(a);
    const b = before.get(id);
    before.delete(id);
    if (!b) {
      out.push(`new in the plan now: ${describe(a)}`);
      continue;
    }
    if (b.source?.sha256 !== a.source?.sha256) out.push(`source changed: ${describe(a)}`);
    else if (b.settings?.fingerprint !== a.settings?.fingerprint)
      out.push(`settings changed: ${describe(a)}`);
    else if (b.kind !== a.kind || b.reason !== a.reason || b.from !== a.from || b.jobId !== a.jobId)
      out.push(`now ${describe(a)}, was ${describe(b)}`);
  }
  for (const b of before.values()) out.push(`no longer planned: ${describe(b)}`);
  return out;
}
