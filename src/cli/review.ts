import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import { keptRunIds, sinceCommit, sinceRun, type ReviewData } from '../review/collect.js';
import { resolveCommit } from '../review/git.js';
import { renderReviewPage } from '../review/page.js';
import { keptDirOf, keptRuns } from '../sync/run/replaced-outputs.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { openRunState, type OpenedState } from './open-state.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { TranslationMemory } from '../state/memory-types.js';
import { documentWording, type DocumentWording } from '../xliff/wording.js';

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
    const data = await compared(opts, loaded, opened);
    const memory = opened.state.memory;
    if (memory) withWording(data, await pageWording(loaded, opened.state, memory, data));
    return data;
  } finally {
    await opened.close();
  }
}

/** The wording of the documents on the page (src/xliff/wording.ts), only those read. */
async function pageWording(
  loaded: LoadedManifest,
  state: OpenedState['state'],
  memory: TranslationMemory,
  data: ReviewData,
): Promise<DocumentWording[]> {
  const shown = new Set(data.sections.flatMap((s) => s.documents.map((d) => `${d.source}\0${d.language}`)));
  if (shown.size === 0) return [];
  return documentWording(loaded, state, memory, (source, lang) => shown.has(`${source}\0${lang}`));
}

/**
 * Each document's wording now and its unit ids, onto the page: a row of a segment the output has
 * now gets its unit's id (matched by where the segment sits).
 */
function withWording(data: ReviewData, wording: readonly DocumentWording[]): void {
  const byOutput = new Map(wording.map((w) => [`${w.output}\0${w.language}`, w]));
  for (const s of data.sections)
    for (const d of s.documents) {
      const w = byOutput.get(`${d.output}\0${d.language}`);
      if (!w) continue;
      d.wording = { counts: w.counts, units: w.units };
      const at = new Map(w.units.map((u) => [u.where, u]));
      // The new translation is the output now (not a file beside it): a segment the memory holds
      // as a person's wording (a translator's, imported) is theirs, whatever its record says.
      const isOutputNow = d.state !== 'conflict' && d.new_translation === d.output;
      for (const r of d.comparison.rows) {
        const unit = r.next === null ? undefined : at.get(r.where);
        if (unit === undefined) continue;
        r.unit = unit.id;
        if (isOutputNow && unit.wording === 'person') r.next_by = 'person';
      }
    }
}

async function compared(
  opts: ReviewOptions,
  loaded: LoadedManifest,
  opened: OpenedState,
): Promise<ReviewData> {
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
