import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import { keptRunIds, sinceCommit, sinceRun, type ReviewData } from '../review/collect.js';
import { resolveCommit } from '../review/git.js';
import { renderReviewPage } from '../review/page.js';
import { keptDirOf, keptRuns } from '../sync/run/replaced-outputs.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { openRunState } from './open-state.js';

// `locsync review [--since <git ref or run>] [-o review.html]`: what changed in the translations,
// segment by segment, for a reviewer (src/review, docs/review.md "The review page").

interface ReviewOptions {
  config: string;
  since?: string;
  output?: string;
  json?: boolean;
}

/** `--since`: `run:12`, `#12` or a bare number of up to 6 digits is a run; anything else a git ref. */
export function runOf(since: string): number | undefined {
  const m = /^(?:run:|#)?(\d{1,6})$/.exec(since);
  return m ? Number(m[1]) : undefined;
}

async function collect(opts: ReviewOptions): Promise<ReviewData> {
  const loaded = await loadManifest(opts.config);
  const opened = await openRunState(loaded, { logger: silentLogger(), command: 'review', drives: false });
  try {
    const base = {
      pipeline: path.relative(process.cwd(), loaded.path) || loaded.path,
      generatedAt: new Date().toISOString(),
    };
    const since = opts.since ?? keptRuns(keptDirOf(loaded.statePath))[0]?.toString();
    if (since === undefined)
      throw new ConfigError(
        'review: no run has replaced a translation yet (nothing kept to compare with); compare with git: --since <ref>, e.g. --since origin/main',
      );
    const run = runOf(since);
    if (run !== undefined) {
      if (!keptRunIds(loaded, run).length)
        throw new ConfigError(
          `review --since ${since}: no run from #${run} on replaced a translation that is still kept (the newest runs are kept, in ${keptDirOf(loaded.statePath)}); compare with git: --since <ref>`,
        );
      const runs = await opened.status.recentRuns(1000);
      return {
        ...base,
        since: `run #${run}`,
        sections: await sinceRun(loaded, run, runs, opened.state.jobs),
      };
    }
    const sha = await resolveCommit(loaded.dir, since);
    if (!sha)
      throw new ConfigError(
        `review --since ${since}: not a run number nor a git commit here (${loaded.dir}); write a run as run:12, a git ref as origin/main, HEAD~3, a tag or a commit`,
      );
    const section = await sinceCommit(loaded, opened.state.jobs, { ref: since, sha });
    return { ...base, since: `git ${since} (${sha.slice(0, 12)})`, sections: [section] };
  } finally {
    await opened.close();
  }
}

export async function reviewAction(opts: ReviewOptions): Promise<void> {
  const data = await collect(opts);
  const text = opts.json ? `${JSON.stringify(data, null, 2)}\n` : renderReviewPage(data);
  const documents = data.sections.reduce((n, s) => n + s.documents.length, 0);
  if (opts.output) {
    fs.writeFileSync(opts.output, text);
    process.stderr.write(
      `${opts.output}: ${documents} document${documents === 1 ? '' : 's'} changed since ${data.since}\n`,
    );
  } else process.stdout.write(text);
  process.exitCode = EXIT.ok;
}
