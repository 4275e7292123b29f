import fs from 'node:fs';
import { outputLanguage } from '../../manifest/in-place-output.js';
import { outputCondition } from '../run/edited-output.js';
import type { PlanContext } from './context.js';
import type { UnitFacts } from './decide.js';
import { sha256File } from './list-sources.js';

// Where the planner may copy a translation from instead of buying it again (reuse): another output
// of this pipeline, or with reuse: across_pipelines, another pipeline's.

/**
 * Another existing output holding this content's translation with these settings, as its job wrote
 * it: one a person edited (or the run found changed when it copied it) holds their wording, not this
 * content's translation, and copying it would fail its check (docs/sync.md, "Exactly once").
 */
export async function existingDonor(
  ctx: PlanContext,
  sha256: string,
  fp: string,
  output: string,
): Promise<{ output: string; jobId: number } | undefined> {
  for (const donor of await ctx.index.donors(sha256, fp)) {
    if (donor.output === output || ctx.refusedDonor(donor.output)) continue;
    if (outputLanguage(donor.output) !== undefined) continue; // a part of a file holding others
    const abs = ctx.folders.abs(donor.output);
    if (!fs.existsSync(abs)) continue;
    const condition = await outputCondition(abs, await ctx.state.jobs.get(donor.jobId));
    if (condition === 'as-written' || condition === 'unrecorded') return donor;
  }
  return undefined;
}

/**
 * With reuse: across_pipelines, another opted-in pipeline's translation of this content, target and
 * settings whose output is still readable and exactly what it wrote (else: uploaded as usual).
 */
export async function acrossPipelinesDonor(
  ctx: PlanContext,
  sha256: string,
  fingerprint: string,
  target_lang: string,
): Promise<UnitFacts['donor']> {
  const across = ctx.state.acrossPipelines;
  if (!across) return undefined;
  for (const t of await across.translationsOf({ sha256, fingerprint, target_lang })) {
    if ((await sha256File(t.path).catch(() => undefined)) === t.outputSha256)
      return {
        output: t.path,
        jobId: t.jobId,
        across: { pipeline: t.pipeline, outputSha256: t.outputSha256 },
      };
  }
  return undefined;
}
