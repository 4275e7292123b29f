import type { ServiceClient } from '../api/client.js';
import { hasTerminology, reconcileTerminology, type TerminologyPlan } from '../styles/terminology.js';
import type { Planner } from './plan/planner.js';
import type { PlanStyles } from './plan/settings.js';
import type { SyncRunArgs } from './run-args.js';

// The style lists and glossaries of a run: reconciled with the service before it plans, and the
// planner told which are ready, which still change and which drifted under policy fail.

/**
 * Reconcile the manifest's style lists and glossaries with the service (applied, or only compared)
 * and hand the planner what it needs: their ids, and the lists and glossary pairs whose change is
 * still pending.
 */
export async function reconcileForPlan(
  args: SyncRunArgs,
  planner: Planner,
  apply: boolean,
): Promise<TerminologyPlan | undefined> {
  const client = args.connection?.client as ServiceClient | undefined;
  if (!client) return undefined;
  // A run with no style lists or glossaries in the manifest leaves the service alone; deleting ones
  // removed from the manifest is left to `styles apply`, while a plan shows that too.
  const inManifest =
    Object.keys(args.loaded.styleLists).length + Object.keys(args.loaded.glossaries ?? {}).length > 0;
  if (apply ? !inManifest : !hasTerminology(args.loaded, args.state)) return undefined;
  const reconcile = () =>
    (args.reconcile ?? reconcileTerminology)({
      loaded: args.loaded,
      client,
      state: args.state,
      apply,
      // A run goes on without the targets of a drifted list; `plan` only shows the drift.
      blockDrifted: apply,
      logger: args.logger,
      ...(args.options?.drift ? { drift: args.options.drift } : {}),
    });
  // Workers sharing a state apply one at a time; the others then find nothing left to change.
  const shared = args.state.shared;
  const styles = apply && shared ? await shared.terminologyExclusive(reconcile) : await reconcile();
  await planner.useStyles({
    ...blockedByDrift(styles, args),
    styleIds: styles.styleIds,
    pendingChanges: apply ? [] : styles.changedKeys,
    glossaryIds: styles.glossaries.glossaryIds,
    pendingGlossaryPairs: apply
      ? []
      : Object.entries(styles.glossaries.changedPairs).flatMap(([k, pairs]) => pairs.map((p) => `${k}/${p}`)),
  });
  return styles;
}

/**
 * Style lists and glossaries that drifted under policy fail, each with why its targets get no
 * translation: logged and announced (notifications) once per run.
 */
function blockedByDrift(
  styles: TerminologyPlan,
  args: SyncRunArgs,
): Pick<PlanStyles, 'blocked' | 'blockedGlossaries'> {
  const what = [
    ...(styles.blocked ?? []).map((d) => ({
      kind: 'style list',
      key: d.key,
      detail: `version ${d.appliedVersion} → ${d.remoteVersion}, `,
    })),
    ...(styles.glossaries.blocked ?? []).map((d) => ({ kind: 'glossary', key: d.key, detail: '' })),
  ];
  if (!what.length) return {};
  const out: Pick<PlanStyles, 'blocked' | 'blockedGlossaries'> = {};
  for (const w of what) {
    const message = `${w.kind} ${w.key} was changed on the service since locsync applied it (${w.detail}drift policy fail): its targets are not translated; \`locsync plan\` shows the change, then sync with --drift overwrite or --drift adopt`;
    const map = w.kind === 'glossary' ? (out.blockedGlossaries ??= {}) : (out.blocked ??= {});
    map[w.key] = message;
    args.logger.error({ [w.kind === 'glossary' ? 'glossary' : 'style_list']: w.key }, message);
  }
  args.events?.emit('styles:drift', {
    lists: what.map((w) => w.key),
    messages: [...Object.values(out.blocked ?? {}), ...Object.values(out.blockedGlossaries ?? {})],
  });
  return out;
}

/**
 * Whether a style list or glossary drifted under policy fail: someone must decide about it, so the
 * run ends failed for drift even when no target that uses it had anything to translate.
 */
export function drifted(styles: TerminologyPlan | undefined): boolean {
  return !!(styles?.blocked?.length || styles?.glossaries.blocked?.length);
}
