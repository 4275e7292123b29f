import fs from 'node:fs';
import path from 'node:path';
import type { Mapping } from '../../manifest/sections/mapping.js';
import type { PlanBuilder } from './builder.js';
import type { PlanContext } from './context.js';
import { outputLanguage } from '../../manifest/in-place-output.js';

// Sources gone since the last run: with on_source_delete: delete, the outputs that still hold their
// translation (and that no live source claims) are deleted; then the source's record is dropped.

export async function planRemovals(
  ctx: PlanContext,
  b: PlanBuilder,
  gone: Array<{ mapping: Mapping; relPath: string }>,
): Promise<void> {
  for (const { mapping: m, relPath } of gone) {
    const policy = m.on_source_delete ?? ctx.loaded.manifest.on_source_delete;
    if (policy === 'delete') {
      const roots = ctx.folders.outputRoots(m);
      for (const job of await ctx.state.jobs.doneOfSource(m.name, relPath)) {
        // Only outputs that still hold this source's translation, and no live source claims.
        if ((await ctx.index.doneOf(job.output_path))?.id !== job.id) continue;
        if (ctx.claims.claimedByOther(job.output_path, m.name, relPath)) continue;
        // A target written into its source file goes with that file, never deleted by locsync.
        if (outputLanguage(job.output_path) !== undefined) continue;
        const abs = ctx.folders.abs(job.output_path);
        const root = roots.find((r) => abs.startsWith(r + path.sep));
        if (!root || !fs.existsSync(abs)) continue;
        b.add({
          kind: 'delete',
          ref: { mapping: m.name, file: relPath, target: job.target_lang, output: job.output_path },
          root: path.relative(ctx.loaded.dir, root).split(path.sep).join('/'),
          jobId: job.id,
        });
      }
    }
    ctx.claims.release(m.name, relPath);
    b.add({ kind: 'forget', mapping: m.name, file: relPath });
  }
}
