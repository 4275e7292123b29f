import fs from 'node:fs';
import path from 'node:path';
import { checkBudget, describeExceeded, type BudgetCaps } from '../billing/budget.js';
import { estimateKey } from '../billing/spend-guard.js';
import { billedThisMonth } from '../billing/ledger.js';
import { formatBill, formatCharacters } from '../billing/money.js';
import type { Logger } from '../log/logger.js';
import type { LoadedManifest } from '../manifest/types.js';
import {
  makePlan,
  type CheckedPlan,
  type RunState,
  type SyncConnection,
  type SyncOptions,
} from '../sync/engine.js';
import type { Plan } from '../sync/plan/types.js';
import { displayUrl } from '../state/postgres/url.js';
import {
  unrecordedOutputs,
  unrecordedOutputsMessage,
  type NewWork,
} from '../sync/plan/unrecorded-outputs.js';
import { formatPlannedCalls } from '../sync/plan/format-price.js';
import { groupPlan } from '../sync/plan/view.js';
import { EXIT } from '../util/errors.js';
import { priceFiles, type PricedFiles } from './plan-text.js';
import { quoteSegments } from '../sync/segments/quote.js';
import { checkSavedPlan } from './saved-plan.js';

// Before a sync uploads anything, its plan (the one it carries out, made after the style lists were
// applied) must not pay again for outputs an empty state does not know and, priced where there
// are caps, must be within the budget caps; with --plan, it must be the saved one: then the saved
// actions are carried out.

/** A run refused before any upload: its message, and the exit code. */
export class RunRefused extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'RunRefused';
  }
}

export interface GateChecks {
  /** `--plan <file>`. */
  savedPlan?: string;
  /** `--max-billed N`. */
  maxBilled?: number;
  /** How the user names the manifest (` -c file` when not the default), for the messages. */
  configArg: string;
  /** `--overwrite-edits`: people's edits are not taken in, their segments are bought or recalled. */
  overwriteEdits?: boolean;
}

interface PlanArgs {
  loaded: LoadedManifest;
  state: RunState;
  connection: SyncConnection;
  logger: Logger;
  options: Pick<SyncOptions, 'only' | 'retranslate' | 'retryFailedQa' | 'overwriteEdits'>;
}

export function budgetCaps(loaded: LoadedManifest, maxBilled?: number): BudgetCaps {
  const b = loaded.manifest.budget;
  return {
    ...(b?.per_run !== undefined ? { perRun: b.per_run } : {}),
    ...(b?.per_month !== undefined ? { perMonth: b.per_month } : {}),
    ...(maxBilled !== undefined ? { maxBilled } : {}),
  };
}

/** The plan as `plan` makes it (style lists compared, not applied), and its file part priced (--dry-run). */
export async function pricedPlan(args: PlanArgs): Promise<PricedFiles & { plan: Plan }> {
  const { plan } = await makePlan({
    loaded: args.loaded,
    state: args.state,
    logger: args.logger,
    connection: args.connection,
    options: args.options,
  });
  const quotes = await quoteSegments(args.loaded, args.state, plan.actions, {
    overwriteEdits: args.options.overwriteEdits ?? false,
  });
  return { ...(await priceFiles(args.loaded, groupPlan(plan), quotes)), plan };
}

/** What the plan priced each upload at, for the budget held during the run (SpendGuard). */
function knownEstimates(files: PricedFiles & { plan: Plan }): Map<string, number> {
  const sha = new Map<string, string>();
  for (const a of files.plan.actions)
    if (a.kind === 'translate') sha.set(`${a.ref.mapping}\0${a.ref.file}`, a.source.sha256);
  const out = new Map<string, number>();
  for (const t of files.toTranslate) {
    const s = sha.get(`${t.mapping}\0${t.file}`);
    if (s !== undefined) out.set(estimateKey(t.mapping, t.file, s), t.price.billed);
  }
  return out;
}

/**
 * The outputs found on disk whose jobs the state records now: another worker of the pipeline took
 * them up after this plan was made and wrote them (a job is recorded before its output is written).
 * They say nothing of a lost state; the run's executor finds them taken.
 */
async function notRecordedMeanwhile<A extends NewWork>(state: RunState, found: A[]): Promise<A[]> {
  if (found.length === 0) return found;
  const outputs = found.map((a) => a.ref.output);
  const recorded = new Set([
    ...(await state.jobs.open()).map((j) => j.output_path),
    ...(await state.jobs.latestDoneOfEach(outputs)).map((r) => r.output_path),
  ]);
  return found.filter((a) => !recorded.has(a.ref.output));
}

/**
 * Checks the run's plan (the one it then carries out): prices it when something must be checked,
 * refuses (RunRefused, or a ConfigError from the saved plan's check) when it must not upload.
 * Answers the plan's estimates when it priced one and, with --plan, the saved actions to carry out.
 */
export async function gateRun(args: {
  loaded: LoadedManifest;
  state: RunState;
  plan: Plan;
  checks: GateChecks;
}): Promise<CheckedPlan | undefined> {
  const { loaded, state, checks, plan } = args;
  const caps = budgetCaps(loaded, checks.maxBilled);
  const known = await state.jobs.anyDone();
  // The price is read by the caps and the saved plan's check only; a first sync without either
  // would spend seconds reading and cutting every document once more before its first request.
  const priced = checks.savedPlan !== undefined || Object.keys(caps).length > 0;
  if (known && !priced) return undefined;

  const unrecorded = await notRecordedMeanwhile(
    state,
    unrecordedOutputs(
      plan.actions.filter((a) => a.kind === 'translate'),
      known,
      (output) => fs.existsSync(path.join(loaded.dir, output)),
    ),
  );
  if (unrecorded.length)
    throw new RunRefused(
      unrecordedOutputsMessage(
        unrecorded,
        loaded.postgres
          ? { location: displayUrl(loaded.postgres.url), postgres: true }
          : { location: loaded.statePath, postgres: false },
        checks.configArg,
      ),
      EXIT.usage,
    );
  if (!priced) return undefined;

  const quotes = await quoteSegments(loaded, state, plan.actions, {
    overwriteEdits: checks.overwriteEdits ?? false,
  });
  const files = { ...(await priceFiles(loaded, groupPlan(plan), quotes)), plan };
  const saved = checks.savedPlan
    ? await checkSavedPlan(checks.savedPlan, loaded, state, plan, files)
    : undefined;

  const rate = loaded.manifest.billing;
  const exceeded = checkBudget(files.price.total.billed, caps, await billedThisMonth(state));
  if (exceeded.length)
    throw new RunRefused(
      [
        `the plan bills ${formatBill(files.price.total.billed, rate)} for ${formatPlannedCalls(files.price.total)}; nothing was sent:`,
        ...describeExceeded(exceeded, formatCharacters).map((l) => `  ${l}`),
        `  (see what it would send: locsync plan${checks.configArg})`,
      ].join('\n'),
      EXIT.budget,
    );
  return {
    known: knownEstimates(files),
    ...(saved && checks.savedPlan ? { actions: saved, heldTo: checks.savedPlan } : {}),
  };
}
