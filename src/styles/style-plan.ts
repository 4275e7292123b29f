import type { ServiceClient } from '../api/client.js';
import type { StyleRuleList } from '../api/types.js';
import type { Logger } from '../log/logger.js';
import type { LoadedManifest, ResolvedStyleList } from '../manifest/load.js';
import type { DriftPolicy } from '../manifest/types.js';
import type { AppliedStyle, StyleStateStore } from '../state/types.js';
import { describeChange, type StyleChange, type StyleContent } from './content.js';
import type { Decision } from './reconciler.js';

// What the style list reconciler decides and how it is told: the actions and drift of a plan, the
// symbols and headlines people read, the error of drift under policy fail. Decided in
// style-kind.ts, applied in reconcile.ts.

export type StyleActionKind = 'create' | 'update' | 'replace' | 'delete' | 'adopt';

export interface StyleAction {
  kind: StyleActionKind;
  key: string;
  name: string;
  language: string;
  /** The existing list on the service (update, replace, delete, adopt). */
  style_id?: string;
  /** From the service's content to the YAML's (adopt: from the YAML's to the service's). */
  changes: StyleChange[];
  /** Why and how, for people ("rule removed: PUT configured_rules", "deleted on the service"). */
  notes: string[];
}

export interface StyleDrift {
  key: string;
  style_id: string;
  policy: DriftPolicy;
  appliedVersion: number;
  remoteVersion: number;
  /** What the service has that the YAML has not (from the YAML's content to the service's). */
  changes: StyleChange[];
  /** The YAML changed too since the last apply: the changes mix both sides. */
  yamlChanged: boolean;
}

export interface StylePlan {
  actions: StyleAction[];
  drift: StyleDrift[];
  /** List key → style_id to send with uploads (lists still to be created in a plan: absent). */
  styleIds: Record<string, string>;
  /** Lists whose content changed (or would change) in this run: outputs made with them are stale. */
  changedKeys: string[];
  /**
   * With `blockDrifted`: lists that drifted under policy fail, left as they are on the service; the
   * targets that use them get no translation this run (the rest go on).
   */
  blocked?: StyleDrift[];
}

export const ACTION_SYMBOLS: Record<StyleActionKind, string> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  adopt: '<',
};

/** Drift under policy `fail`: someone changed lists on the service; nothing was modified. */
export class DriftError extends Error {
  constructor(readonly drift: StyleDrift[]) {
    super(
      [
        `style list${drift.length > 1 ? 's' : ''} changed on the service since locsync last applied ${drift.length > 1 ? 'them' : 'it'} (drift policy: fail); nothing was changed:`,
        ...drift.flatMap((d) => [
          `  ${driftHeadline(d)}`,
          ...d.changes.map((c) => `      ${describeChange(c)}`),
        ]),
        "Run again with --drift overwrite (make the service match the YAML) or --drift adopt (write the service's state into the YAML), set the list's drift policy, or edit the YAML to match.",
      ].join('\n'),
    );
    this.name = 'DriftError';
  }
}

export function driftHeadline(d: StyleDrift): string {
  const side = d.yamlChanged ? ' (the YAML changed too: service vs YAML)' : '';
  return `${d.key}: version ${d.appliedVersion} → ${d.remoteVersion} on the service (style_id ${d.style_id}, policy ${d.policy})${side}`;
}

export interface ReconcileArgs {
  loaded: LoadedManifest;
  client: ServiceClient;
  state: StyleStateStore;
  apply: boolean;
  /** Only these list keys. */
  only?: string[];
  /** A one-off drift policy for this run, instead of each list's own. */
  drift?: DriftPolicy;
  /**
   * Lists drifted under policy fail are left alone (listed in `blocked`) instead of stopping the
   * whole apply (DriftError): a sync translates what does not use them.
   */
  blockDrifted?: boolean;
  logger?: Logger;
}

/** What one list needs, decided before anything is modified. */
export type ListDecision = Decision<
  ResolvedStyleList,
  AppliedStyle,
  StyleRuleList,
  StyleContent,
  StyleAction,
  StyleDrift
>;
