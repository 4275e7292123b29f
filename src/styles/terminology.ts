import type { ServiceClient } from '../api/client.js';
import type { Logger } from '../log/logger.js';
import type { LoadedManifest } from '../manifest/types.js';
import { didYouMean } from '../manifest/suggest.js';
import type { DriftPolicy } from '../manifest/types.js';
import type { GlossaryStateStore, StyleStateStore } from '../state/types.js';
import { ConfigError } from '../util/errors.js';
import { GlossaryDriftError, prepareGlossaries, type GlossaryPlan } from './glossary-reconcile.js';
import { reconcileStyles, type StylePlan } from './reconcile.js';

// Style lists and glossaries together: what `plan`, `styles apply` and `sync` reconcile before any
// document is sent. Nothing is modified on the service until neither has drift under policy fail.

export interface TerminologyPlan extends StylePlan {
  glossaries: GlossaryPlan;
}

export interface TerminologyArgs {
  loaded: LoadedManifest;
  client: ServiceClient;
  state: StyleStateStore & { glossaries: GlossaryStateStore };
  apply: boolean;
  /** Only these keys (of style_lists or glossaries). */
  only?: string[];
  /** A one-off drift policy for this run. */
  drift?: DriftPolicy;
  /** Style lists and glossaries drifted under policy fail block only their targets (see ReconcileArgs). */
  blockDrifted?: boolean;
  logger?: Logger;
}

export const EMPTY_GLOSSARY_PLAN: GlossaryPlan = {
  actions: [],
  drift: [],
  glossaryIds: {},
  changedPairs: {},
};
export const EMPTY_STYLE_PLAN: StylePlan = { actions: [], drift: [], styleIds: {}, changedKeys: [] };

function styleKeys(args: TerminologyArgs): string[] {
  return [...Object.keys(args.loaded.styleLists), ...args.state.allStyles().map((s) => s.key)];
}

function glossaryKeys(args: TerminologyArgs): string[] {
  return [
    ...Object.keys(args.loaded.glossaries ?? {}),
    ...args.state.glossaries.allGlossaries().map((g) => g.key),
  ];
}

/** Split `--only` keys between style lists and glossaries; an unknown key is a ConfigError. */
function splitOnly(args: TerminologyArgs): { styles?: string[]; glossaries?: string[] } {
  if (!args.only) return {};
  const styles = styleKeys(args);
  const glossaries = glossaryKeys(args);
  for (const k of args.only) {
    if (!styles.includes(k) && !glossaries.includes(k))
      throw new ConfigError(
        `unknown style list or glossary '${k}'${didYouMean(k, [...styles, ...glossaries])}; the manifest defines: ${[...new Set([...styles, ...glossaries])].join(', ') || 'none'}`,
      );
  }
  return {
    styles: args.only.filter((k) => styles.includes(k)),
    glossaries: args.only.filter((k) => glossaries.includes(k)),
  };
}

/** Whether the manifest or the state has style lists or glossaries (else the service is not needed). */
export function hasTerminology(loaded: LoadedManifest, state: TerminologyArgs['state']): boolean {
  return (
    Object.keys(loaded.styleLists).length > 0 ||
    Object.keys(loaded.glossaries ?? {}).length > 0 ||
    state.allStyles().length > 0 ||
    state.glossaries.allGlossaries().length > 0
  );
}

/**
 * Reconcile style lists and glossaries with the service; with `apply`, make the service match.
 * Drift under policy fail (GlossaryDriftError, DriftError) stops before anything is modified.
 */
export async function reconcileTerminology(args: TerminologyArgs): Promise<TerminologyPlan> {
  const only = splitOnly(args);
  const common = {
    loaded: args.loaded,
    client: args.client,
    ...(args.drift ? { drift: args.drift } : {}),
    ...(args.logger ? { logger: args.logger } : {}),
  };
  const wantGlossaries = only.glossaries ? only.glossaries.length > 0 : glossaryKeys(args).length > 0;
  const wantStyles = only.styles ? only.styles.length > 0 : styleKeys(args).length > 0;

  const g = wantGlossaries
    ? await prepareGlossaries({
        ...common,
        state: args.state.glossaries,
        ...(only.glossaries ? { only: only.glossaries } : {}),
      })
    : undefined;
  if (args.apply && g && !args.blockDrifted) {
    const failing = g.plan.drift.filter((d) => d.policy === 'fail');
    if (failing.length) throw new GlossaryDriftError(failing);
  }
  const styles = wantStyles
    ? await reconcileStyles({
        ...common,
        state: args.state,
        apply: args.apply,
        ...(args.blockDrifted ? { blockDrifted: true } : {}),
        ...(only.styles ? { only: only.styles } : {}),
      })
    : { ...EMPTY_STYLE_PLAN, actions: [], drift: [], styleIds: {}, changedKeys: [] };
  const glossaries = g ? (args.apply ? await g.apply(args.blockDrifted) : g.plan) : EMPTY_GLOSSARY_PLAN;
  return { ...styles, glossaries };
}
