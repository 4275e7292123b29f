import { describeChange } from './content.js';
import {
  ACTION_SYMBOLS,
  driftHeadline,
  type StyleAction,
  type StyleActionKind,
  type StylePlan,
} from './style-plan.js';

/** Under a drift listed with policy fail. */
export const DRIFT_FAIL_HINT =
  '        apply stops here: run with --drift overwrite or --drift adopt, set the drift policy, or edit the YAML to match';

// Style plans for people: terraform-like symbols, one block per list, drift on its own, a summary.

export type StyleCounts = Record<StyleActionKind, number>;

export function countActions(plan: Pick<StylePlan, 'actions'>): StyleCounts {
  const counts: StyleCounts = { create: 0, update: 0, replace: 0, delete: 0, adopt: 0 };
  for (const a of plan.actions) counts[a.kind]++;
  return counts;
}

/** "Plan: 1 to create, 2 to update, 0 to replace." (delete and adopt only when there are some). */
export function summaryLine(counts: StyleCounts, verb: 'plan' | 'applied' = 'plan'): string {
  if (verb === 'applied') {
    const parts = [`${counts.create} created`, `${counts.update} updated`, `${counts.replace} replaced`];
    if (counts.delete) parts.push(`${counts.delete} deleted`);
    if (counts.adopt) parts.push(`${counts.adopt} adopted into the YAML`);
    return `Apply complete: ${parts.join(', ')}.`;
  }
  const parts = [`${counts.create} to create`, `${counts.update} to update`, `${counts.replace} to replace`];
  if (counts.delete) parts.push(`${counts.delete} to delete`);
  if (counts.adopt) parts.push(`${counts.adopt} to adopt into the YAML`);
  return `Plan: ${parts.join(', ')}.`;
}

const VERBS: Record<'plan' | 'applied', Record<StyleActionKind, string>> = {
  plan: {
    create: 'will be created',
    update: 'will be updated in place',
    replace: 'will be replaced',
    delete: 'will be deleted',
    adopt: "will be written into the YAML from the service's state",
  },
  applied: {
    create: 'created',
    update: 'updated in place',
    replace: 'replaced',
    delete: 'deleted',
    adopt: "written into the YAML from the service's state",
  },
};

function actionLines(a: StyleAction, verb: 'plan' | 'applied'): string[] {
  const id = a.style_id ? ` [${a.style_id}]` : '';
  return [
    `  ${ACTION_SYMBOLS[a.kind].padEnd(3)} ${a.key} "${a.name}" (${a.language})${id} ${VERBS[verb][a.kind]}`,
    ...a.changes.map((c) => `        ${describeChange(c)}`),
    ...a.notes.map((n) => `        note: ${n}`),
  ];
}

/** What to say when there is nothing to do (drift is not "matching"). */
function nothingToDo(drift: number): string {
  return drift
    ? '  nothing to change from the YAML; changed on the service (see Drift below)'
    : '  no changes: the service matches the YAML';
}

/** The style part of `locsync plan` (and of `styles apply`'s report). */
export function formatStylePlan(plan: StylePlan, verb: 'plan' | 'applied' = 'plan'): string {
  const lines: string[] = ['Style lists:'];
  if (plan.actions.length === 0) lines.push(nothingToDo(plan.drift.length));
  for (const a of plan.actions) lines.push(...actionLines(a, verb));
  if (plan.drift.length) {
    lines.push('', 'Drift (changed on the service since locsync last applied it):');
    for (const d of plan.drift) {
      lines.push(`  !   ${driftHeadline(d)}`, ...d.changes.map((c) => `        ${describeChange(c)}`));
      if (d.policy === 'fail') lines.push(DRIFT_FAIL_HINT);
    }
  }
  lines.push('', summaryLine(countActions(plan), verb));
  return lines.join('\n');
}
