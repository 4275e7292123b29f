import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';
import { makePlan } from '../sync/engine.js';
import { recordObservations } from '../sync/sync-run.js';
import { decideAdoption } from '../sync/plan/adoptable.js';
import { RunLedger } from '../sync/run/run-ledger.js';
import { unitOf, type TranslateAction } from '../sync/plan/types.js';
import { jobRowOf } from '../sync/run/job-row.js';
import { EXIT } from '../util/errors.js';
import { openRunState } from './open-state.js';

interface StateAdoptOptions {
  config: string;
  json?: boolean;
}

/** What adopting means for the outputs (docs/review.md): said with every adoption. */
const ADOPTED_NOTE =
  "They are taken as people's work, not locsync's (it did not write them): when a source changes, its new translation goes beside the output (*.locsync-new.*), and on the segment path each segment's wording is kept as reviewed, a changed segment listed as a conflict; `locsync status` lists them as edited by people.";

/**
 * The segment path: the adopted output's source segments recorded as written, so that the next
 * delivery reads its segments as a person's wording (src/sync/reviewed-segments.ts).
 */
async function recordSegments(loaded: LoadedManifest, a: TranslateAction, jobId: number): Promise<void> {
  const settings = a.settings.request.segments?.settings;
  if (settings === undefined) return;
  const { readSegments } = await import('../sync/segments/document-segments.js');
  const { recordAdopted } = await import('../sync/reviewed-segments.js');
  let read;
  try {
    read = await readSegments(path.join(loaded.dir, a.source.path), a.source.ext, {
      sourceLang: a.settings.request.source_lang,
      targetLang: a.settings.request.target_lang,
      settings,
      read: a.settings.request.segments?.read,
    });
  } catch {
    return; // unreadable: its output stays a person's whole (the new translation beside it)
  }
  await recordAdopted(path.dirname(loaded.statePath), a.ref.output, jobId, read.segments);
}

function mtimeMs(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * `locsync state adopt`: after the state was lost or emptied, each existing output written after its
 * source last changed is recorded as done for the current settings (billing nothing); what cannot be
 * vouched for is listed and left to the next sync.
 */
export async function stateAdoptAction(opts: StateAdoptOptions): Promise<void> {
  const loaded = await loadManifest(opts.config);
  const logger = createLogger();
  // Locked (SQLite) or registered as a worker (PostgreSQL): nothing else drives the pipeline's
  // state while outputs are recorded as done.
  const opened = await openRunState(loaded, { logger, command: 'state adopt', drives: true });
  const { state } = opened;
  try {
    const { plan } = await makePlan({ loaded, state, logger });
    const uploads = plan.actions.filter((a): a is TranslateAction => a.kind === 'translate');
    const decision = decideAdoption(uploads, (a) => ({
      source: mtimeMs(path.join(loaded.dir, a.source.path)),
      output: mtimeMs(path.join(loaded.dir, a.ref.output)),
    }));
    // With several workers, one may be translating a unit right now: it is its work, not an output to adopt.
    if (state.shared) {
      const adopt: TranslateAction[] = [];
      for (const a of decision.adopt) {
        const holder = await state.shared.holderOf(unitOf(a));
        if (holder) decision.notVouched.push({ action: a, why: `worker ${holder} is translating it now` });
        else adopt.push(a);
      }
      decision.adopt = adopt;
    }
    const runId = await state.runs.start('state adopt');
    // The sources' hashes as the plan read them (what a following scan compares with).
    await recordObservations(state, plan.observations);
    // Through the run's ledger, the one writer of job rows: an adopted transition per output.
    const ledger = new RunLedger({ jobs: state.jobs });
    for (const a of decision.adopt) {
      const job = await ledger.adopted(jobRowOf(a, runId));
      await recordSegments(loaded, a, job.id);
    }
    await state.runs.finish(runId, { status: 'ok' }, { adopted: decision.adopt.length }, 0);
    const ref = (a: TranslateAction) => ({
      mapping: a.ref.mapping,
      file: a.ref.file,
      target: a.ref.target,
      output: a.ref.output,
    });
    if (opts.json) {
      const result = {
        adopted: decision.adopt.map(ref),
        note: ADOPTED_NOTE,
        not_adopted: decision.notVouched.map((n) => ({ ...ref(n.action), why: n.why })),
      };
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      return;
    }
    const lines = [
      `Adopted ${decision.adopt.length} outputs: recorded as done for the current settings, nothing billed.`,
    ];
    if (decision.adopt.length) lines.push(ADOPTED_NOTE);
    if (decision.notVouched.length) {
      lines.push(
        `Not adopted (${decision.notVouched.length}; the next sync translates them, billed — see locsync plan):`,
      );
      for (const n of decision.notVouched)
        lines.push(`  ${n.action.ref.mapping}/${n.action.ref.file} -> ${n.action.ref.target}: ${n.why}`);
    }
    process.stdout.write(lines.join('\n') + '\n');
    process.exitCode = EXIT.ok;
  } finally {
    await opened.close();
  }
}
