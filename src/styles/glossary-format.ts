import { DRIFT_FAIL_HINT } from './format.js';
import {
  dictionaryChangeLines,
  GLOSSARY_SYMBOLS,
  glossaryDriftHeadline,
  type GlossaryAction,
  type GlossaryActionKind,
  type GlossaryPlan,
} from './glossary-plan.js';

// Glossary plans for people, next to the style lists: + create, ~ dictionaries replaced (with the
// counts of entries added, removed and changed), - delete, < adopt; drift on its own.

export type GlossaryCounts = Record<GlossaryActionKind, number>;

export function countGlossaryActions(plan: Pick<GlossaryPlan, 'actions'>): GlossaryCounts {
  const counts: GlossaryCounts = { create: 0, update: 0, delete: 0, adopt: 0 };
  for (const a of plan.actions) counts[a.kind]++;
  return counts;
}

const VERBS: Record<'plan' | 'applied', Record<GlossaryActionKind, string>> = {
  plan: {
    create: 'will be created',
    update: 'will be updated in place',
    delete: 'will be deleted',
    adopt: "will be written into the glossary's files from the service's entries",
  },
  applied: {
    create: 'created',
    update: 'updated in place',
    delete: 'deleted',
    adopt: "written into the glossary's files from the service's entries",
  },
};

function actionLines(a: GlossaryAction, verb: 'plan' | 'applied'): string[] {
  const id = a.glossary_id ? ` [${a.glossary_id}]` : '';
  return [
    `  ${GLOSSARY_SYMBOLS[a.kind].padEnd(3)} ${a.key} "${a.name}"${id} ${VERBS[verb][a.kind]}`,
    ...(a.rename ? [`        ~ name: ${a.rename.from} → ${a.rename.to}`] : []),
    ...a.changes.flatMap((c) => dictionaryChangeLines(c, '        ')),
    ...a.notes.map((n) => `        note: ${n}`),
  ];
}

export function glossarySummaryLine(counts: GlossaryCounts, verb: 'plan' | 'applied' = 'plan'): string {
  const to = verb === 'plan' ? 'to ' : '';
  const words =
    verb === 'plan'
      ? { create: 'create', update: 'update', delete: 'delete', adopt: 'adopt into the files' }
      : { create: 'created', update: 'updated', delete: 'deleted', adopt: 'adopted into the files' };
  const parts = [`${counts.create} ${to}${words.create}`, `${counts.update} ${to}${words.update}`];
  if (counts.delete) parts.push(`${counts.delete} ${to}${words.delete}`);
  if (counts.adopt) parts.push(`${counts.adopt} ${to}${words.adopt}`);
  return `Glossaries: ${parts.join(', ')}.`;
}

/** The glossary part of `locsync plan` and of `styles apply`'s report. */
export function formatGlossaryPlan(plan: GlossaryPlan, verb: 'plan' | 'applied' = 'plan'): string {
  const lines: string[] = ['Glossaries:'];
  if (plan.actions.length === 0)
    lines.push(
      plan.drift.length
        ? '  nothing to change from the YAML; changed on the service (see Drift below)'
        : '  no changes: the service matches the YAML',
    );
  for (const a of plan.actions) lines.push(...actionLines(a, verb));
  if (plan.drift.length) {
    lines.push('', 'Drift (glossary entries changed on the service since locsync last applied them):');
    for (const d of plan.drift) {
      lines.push(
        `  !   ${glossaryDriftHeadline(d)}`,
        ...d.changes.flatMap((c) => dictionaryChangeLines(c, '        ')),
      );
      if (d.policy === 'fail') lines.push(DRIFT_FAIL_HINT);
    }
  }
  lines.push('', glossarySummaryLine(countGlossaryActions(plan), verb));
  return lines.join('\n');
}
