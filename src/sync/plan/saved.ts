import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { ConfigError } from '../../util/errors.js';
import {
  MAX_SAVED_PLAN_BYTES,
  SAVED_PLAN_FORMAT,
  savedActionSchema,
  savedPlanEnvelopeSchema,
  type SavedAction,
  type SavedPlanFile,
} from './saved-plan-schema.js';

// A plan saved for review (`plan -out plan.json`) and applied later (`sync --plan plan.json`), the
// review-then-apply workflow of terraform: the file holds the planned actions with their prices, the
// inputs they were made from and a token of the state. Applying re-plans and compares: only when
// every action is the same (same sources by content, same settings, same state) is it carried out.

export { SAVED_PLAN_FORMAT, SAVED_PLAN_VERSION } from './saved-plan-schema.js';

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

export type SavedPlan = SavedPlanFile;

/** A saved plan as written, in the planner's own types (the schema checks it when it is read back). */
export type SavedPlanToWrite = Omit<SavedPlan, 'plan'> & {
  plan: { actions: readonly object[]; inputs: object; files: object };
};

export function sha256Text(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Writes the saved plan (mode 0644: it holds no secret, only paths, hashes and prices). */
export function writeSavedPlan(file: string, saved: SavedPlanToWrite): void {
  fs.writeFileSync(file, JSON.stringify(saved, null, 2) + '\n');
}

/** At most this many of a file's problems are listed (a broken file can have a million). */
const SHOWN_PROBLEMS = 5;

/** Reads a saved plan and checks its shape; ConfigError naming the file and the fields when it is not one. */
export function readSavedPlan(file: string): SavedPlan {
  const make = `make one with \`locsync plan -out ${file}\``;
  let parsed: unknown;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_SAVED_PLAN_BYTES)
      throw new Error(`${size} bytes, more than a saved plan can be (${MAX_SAVED_PLAN_BYTES})`);
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`--plan ${file}: cannot read a saved plan (${(err as Error).message})`, { file });
  }
  const p = parsed as { format?: unknown } | null;
  if (typeof p !== 'object' || p === null || p.format !== SAVED_PLAN_FORMAT)
    throw new ConfigError(`--plan ${file}: not a plan saved by this locsync (${make})`, { file });
  const problems: string[] = [];
  const problem = (at: PropertyKey[], message: string) =>
    problems.push(`  ${at.map(String).join('.') || '(top)'}: ${message}`);
  const envelope = savedPlanEnvelopeSchema.safeParse(parsed, { reportInput: false });
  if (!envelope.success)
    for (const i of envelope.error.issues.slice(0, SHOWN_PROBLEMS)) problem(i.path, i.message);
  const actions: SavedAction[] = [];
  if (envelope.success)
    for (const [n, a] of envelope.data.plan.actions.entries()) {
      const action = savedActionSchema.safeParse(a, { reportInput: false });
      if (action.success) actions.push(action.data);
      else if (problems.length < SHOWN_PROBLEMS)
        problem(
          ['plan', 'actions', n, ...(action.error.issues[0]?.path ?? [])],
          action.error.issues[0]!.message,
        );
      else {
        problems.push('  ... and more');
        break;
      }
    }
  if (problems.length || !envelope.success)
    throw new ConfigError(
      `--plan ${file}: not a valid saved plan, nothing was uploaded (${make}):\n${problems.join('\n')}`,
      { file },
    );
  return { ...envelope.data, plan: { ...envelope.data.plan, actions } };
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
