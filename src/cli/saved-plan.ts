import fs from 'node:fs';
import path from 'node:path';
import type { LoadedManifest } from '../manifest/types.js';
import type { SyncState } from '../state/types.js';
import {
  planDifferences,
  readSavedPlan,
  SAVED_PLAN_FORMAT,
  SAVED_PLAN_VERSION,
  sha256Text,
  writeSavedPlan,
} from '../sync/plan/saved.js';
import { fieldDifferences } from '../sync/plan/saved-plan-fields.js';
import type { Plan, PlannedAction } from '../sync/plan/types.js';
import { ConfigError } from '../util/errors.js';
import type { PricedFiles } from './plan-text.js';

// `plan -out plan.json` and `sync --plan plan.json`: the saved plan holds the planned actions (each
// with its source's content hash and settings fingerprint), their prices and a token of the state;
// sync carries the saved actions out only while the plan it makes now is the same work, down to the
// fields the file shows (nothing of the sources, settings or state moved on).

/** Writes the plan for `sync --plan`. */
export async function saveFilesPlan(
  file: string,
  loaded: LoadedManifest,
  state: SyncState,
  plan: Plan,
  files: PricedFiles,
): Promise<void> {
  writeSavedPlan(file, {
    format: SAVED_PLAN_FORMAT,
    version: SAVED_PLAN_VERSION,
    created_at: new Date().toISOString(),
    manifest: { path: loaded.path, sha256: sha256Text(fs.readFileSync(loaded.path)) },
    state_token: await state.jobs.changeToken(),
    plan: { actions: plan.actions, inputs: plan.inputs, files },
  });
}

/** At most this many differences are listed (a plan can hold hundreds of thousands of actions). */
const SHOWN_CHANGES = 20;

/**
 * Before `sync --plan file` uploads anything: the plan made now must be the saved one, down to the
 * fields the file shows (prices, sizes: what the reviewer read). Throws a ConfigError (exit 2)
 * listing what changed: sources, settings, the state, the actions, or fields edited in the file.
 * Answers the saved actions: what the run carries out.
 */
export async function checkSavedPlan(
  file: string,
  loaded: LoadedManifest,
  state: SyncState,
  fresh: Plan,
  freshFiles: PricedFiles,
): Promise<PlannedAction[]> {
  const saved = readSavedPlan(file);
  const changes: string[] = [];
  if (path.resolve(saved.manifest.path) !== loaded.path)
    changes.push(`the plan was made for ${saved.manifest.path}, not ${loaded.path}`);
  if (saved.state_token !== (await state.jobs.changeToken()))
    changes.push('the state moved on: jobs were recorded since (another sync or watch ran)');
  let more = false;
  for (const c of planDifferences(saved.plan.actions, fresh.actions)) {
    if (changes.length === SHOWN_CHANGES) {
      more = true;
      break;
    }
    changes.push(c);
  }
  if (!changes.length) {
    // The same work: then every field the file shows must be the one computed now.
    const { plan: _plan, ...shownFiles } = freshFiles as PricedFiles & { plan?: Plan };
    const edited = fieldDifferences(
      'plan',
      { actions: saved.plan.actions, files: saved.plan.files },
      { actions: fresh.actions, files: shownFiles },
      SHOWN_CHANGES,
    );
    if (edited.lines.length)
      throw new ConfigError(
        `--plan ${file}: the file does not say what the plan made now says (was it edited after it was saved?), nothing was uploaded:\n` +
          edited.lines.map((c) => `  ${c}`).join('\n') +
          (edited.more ? '\n  ... and more' : '') +
          `\nMake a new one: locsync plan -out ${file}`,
      );
  }
  if (changes.length)
    throw new ConfigError(
      `--plan ${file}: the plan made ${saved.created_at} is out of date, nothing was uploaded:\n` +
        changes.map((c) => `  ${c}`).join('\n') +
        (more ? '\n  ... and more' : '') +
        `\nMake a new one: locsync plan -out ${file}`,
    );
  // Field for field the actions of the plan made now (checked above): the reviewed ones are run.
  return saved.plan.actions as unknown as PlannedAction[];
}
