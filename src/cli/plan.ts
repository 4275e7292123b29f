import { writeResult } from '../log/terminal.js';
import path from 'node:path';
import { printable } from '../log/printable.js';
import type { DriftPolicy } from '../manifest/types.js';
import { EMPTY_GLOSSARY_PLAN, EMPTY_STYLE_PLAN, type TerminologyPlan } from '../styles/terminology.js';
import type { SyncPlan } from '../sync/engine.js';
import type { Plan } from '../sync/plan/types.js';
import { EXIT } from '../util/errors.js';
import { formatFiles, priceFiles } from './plan-text.js';
import { quoteSegments } from '../sync/segments/quote.js';
import { saveFilesPlan } from './saved-plan.js';
import { formatTerminologyPlan, needsStyles, terminologyJson, withStyleContext } from './styles.js';

interface PlanOptions {
  config: string;
  detailedExitcode?: boolean;
  json?: boolean;
  drift?: DriftPolicy;
  /** Save the plan to this file for `sync --plan` (review, then apply). */
  out?: string;
  /** Say why this source file would be translated (or not), instead of the whole plan. */
  why?: string;
  /** Outputs that failed the output checks are planned again (docs/qa.md), priced. */
  retryFailedQa?: boolean;
}

const EMPTY_STYLES: TerminologyPlan = { ...EMPTY_STYLE_PLAN, glossaries: EMPTY_GLOSSARY_PLAN };

/** Whether running sync (and styles apply) would change anything. */
function hasChanges(styles: TerminologyPlan, files: SyncPlan): boolean {
  return (
    styles.actions.length > 0 ||
    styles.drift.length > 0 ||
    styles.glossaries.actions.length > 0 ||
    styles.glossaries.drift.length > 0 ||
    files.toTranslate.length +
      files.toReuse.length +
      files.toResume.length +
      files.resaved.length +
      files.toDelete.length >
      0
  );
}

/** The plan as `--json` prints it (docs/plan-json.md): everything but what the scan observed. */
function planForJson(p: Plan): Omit<Plan, 'observations'> {
  const { observations: _observations, ...rest } = p;
  return rest;
}

async function plan(opts: PlanOptions): Promise<number> {
  return withStyleContext(
    opts.config,
    { connect: needsStyles },
    async ({ loaded, state, logger, connection }) => {
      const { makePlan } = await import('../sync/engine.js');
      const { groupPlan } = await import('../sync/plan/view.js');
      const made = await makePlan({
        loaded,
        state,
        logger,
        ...(connection ? { connection } : {}),
        options: {
          ...(opts.drift ? { drift: opts.drift } : {}),
          ...(opts.retryFailedQa ? { retryFailedQa: true } : {}),
        },
      });
      if (opts.why) {
        const { whyText } = await import('../sync/plan/why.js');
        const text = await whyText(made.plan, state, loaded, opts.why);
        writeResult(text.split('\n').map(printable).join('\n'));
        return EXIT.ok;
      }
      const { editedOutputs, withPlanned, formatEdited } = await import('../sync/edited-outputs.js');
      // The outputs a translation would be written to (beside them, when edited).
      const written = made.plan.actions.flatMap((a) =>
        a.kind === 'translate' || a.kind === 'reuse' || a.kind === 'resume' ? [a.ref.output] : [],
      );
      const { plannedReviews } = await import('../sync/segments/planned-review.js');
      const edited = withPlanned(
        await editedOutputs(state.jobs, loaded.dir, opts.config, path.dirname(loaded.statePath)),
        new Set(written),
        await plannedReviews(loaded, state, made.plan.actions),
      );
      const styles = made.styles ?? EMPTY_STYLES;
      const files = await priceFiles(
        loaded,
        groupPlan(made.plan),
        await quoteSegments(loaded, state, made.plan.actions),
      );
      if (opts.out) await saveFilesPlan(opts.out, loaded, state, made.plan, files);
      if (opts.json) {
        const out = {
          ...terminologyJson(styles),
          files,
          plan: planForJson(made.plan),
          price: files.price,
          changes: hasChanges(styles, files),
          edited,
        };
        process.stdout.write(JSON.stringify(out, null, 2) + '\n');
      } else {
        writeResult(
          `${formatTerminologyPlan(styles)}\n\n${formatFiles(files, loaded.manifest.billing)}` +
            (edited.length ? `\n\n${formatEdited(edited).map(printable).join('\n')}` : '') +
            (opts.out
              ? `\n\nSaved to ${opts.out}: \`locsync sync --plan ${opts.out}\` carries out exactly this plan.`
              : ''),
        );
      }
      // A name that cannot exist is a planning error: `sync` refuses it before buying anything.
      const unwritable = made.plan.actions.flatMap((a) =>
        a.kind === 'skip' && a.reason === 'unwritable-name' ? [a.message] : [],
      );
      if (unwritable.length) {
        process.stderr.write(
          `Refused (${unwritable.length}):\n${unwritable.map((m) => `  ${printable(m)}\n`).join('')}`,
        );
        return EXIT.failed;
      }
      if (!opts.detailedExitcode) return EXIT.ok;
      return hasChanges(styles, files) ? EXIT.changes : EXIT.ok;
    },
  );
}

export async function planAction(opts: PlanOptions): Promise<void> {
  process.exitCode = await plan(opts);
}
